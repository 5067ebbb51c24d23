#!/bin/bash

if [ "$PWD" = "/" ]; then
    echo "Error: No working directory set. Please set a WORKDIR in your Dockerfile before running this script."
    exit 1
fi

/usr/bin/python3 -I -m pytest --noconftest -c /dev/null -p no:cacheprovider --rootdir="$TEST_DIR" "$TEST_DIR/test_outputs.py" -rA || true
