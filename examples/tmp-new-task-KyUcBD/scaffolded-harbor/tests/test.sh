#!/bin/bash
# The reward is pytest's verdict: 1 when every test passes, 0 otherwise.
mkdir -p /logs/verifier

if python3 -m pytest -rA /tests/test_outputs.py; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
