#!/bin/bash
set -euo pipefail

# Rewrite the script so every path stays one word: quoted variables, NUL-separated file lists,
# tar reading names from a list instead of the command line.
cat > /app/backup.sh <<'SH'
#!/bin/bash
set -euo pipefail
src=$1
dest=$2

mkdir -p -- "$dest"
dest=$(cd -- "$dest" && pwd)
cd -- "$src"

list=$(mktemp)
trap 'rm -f "$list"' EXIT
find . -type f -name '*.txt' -printf '%P\0' | LC_ALL=C sort -z > "$list"
tar -czf "$dest/backup.tar.gz" --null --verbatim-files-from --no-recursion -T "$list"
tr '\0' '\n' < "$list" > "$dest/manifest.txt"
SH
chmod +x /app/backup.sh

demo=$(mktemp -d)
mkdir -p "$demo/in/sub dir"
echo one > "$demo/in/a file.txt"
echo two > "$demo/in/sub dir/b [1].txt"
bash /app/backup.sh "$demo/in" "$demo/out dir"
cat "$demo/out dir/manifest.txt"
rm -rf "$demo"
