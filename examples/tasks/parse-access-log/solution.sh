#!/bin/bash
set -euo pipefail
export LC_ALL=C

awk '{ print $9 }' /app/access.log | sort | uniq -c \
  | awk 'BEGIN { printf "{" } { printf "%s\"%s\": %d", (NR > 1 ? ", " : ""), $2, $1 } END { print "}" }' \
  > /app/status_counts.json

awk '{ print $1 }' /app/access.log | sort | uniq -c | sort -k1,1nr -k2,2 | head -n 1 | awk '{ print $2 }' \
  > /app/top_ip.txt

cat /app/status_counts.json /app/top_ip.txt
