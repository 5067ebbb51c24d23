#!/bin/bash
# Archive the .txt files of a folder.
SRC=$1
DEST=$2

mkdir -p $DEST
cd $SRC
FILES=$(find . -name *.txt)
tar czf $DEST/backup.tar.gz $FILES
for f in $FILES; do
  echo $f
done | sort > $DEST/manifest.txt
