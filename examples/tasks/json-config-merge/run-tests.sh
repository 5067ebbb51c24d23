#!/bin/bash

# pytest ships with the image (Debian's python3-pytest), so nothing is installed at test time.

if [ "$PWD" = "/" ]; then
    echo "Error: No working directory set. Please set a WORKDIR in your Dockerfile before running this script."
    exit 1
fi

pytest $TEST_DIR/test_outputs.py -rA
