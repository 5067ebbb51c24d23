#!/bin/bash

# pytest ships with the image (Debian's python3-pytest), so nothing is installed at test time.
# --noconftest and -c /dev/null: a conftest.py or pytest.ini the agent leaves in / or /app cannot steer the run;
# /usr/bin/python3 -I: no pytest, python3 or usercustomize the agent puts on PATH or in site-packages runs instead.

if [ "$PWD" = "/" ]; then
    echo "Error: No working directory set. Please set a WORKDIR in your Dockerfile before running this script."
    exit 1
fi

/usr/bin/python3 -I -m pytest --noconftest -c /dev/null -p no:cacheprovider --rootdir="$TEST_DIR" "$TEST_DIR/test_outputs.py" -rA
