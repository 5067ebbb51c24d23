#!/bin/bash

mkdir -p /logs/verifier

# --noconftest and -c /dev/null: a conftest.py or pytest.ini the agent leaves in / or /app cannot steer the run;
# /usr/bin/python3 -I: no pytest, python3 or usercustomize the agent puts on PATH or in site-packages runs instead.
/usr/bin/python3 -I -m pytest --noconftest -c /dev/null -p no:cacheprovider --rootdir=/tests /tests/test_outputs.py -rA

if [ $? -eq 0 ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
