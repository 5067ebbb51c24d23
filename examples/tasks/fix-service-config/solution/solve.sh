#!/bin/bash
set -euo pipefail

python3 - <<'PY'
import configparser
import json

with open("/app/host.json") as fh:
    cores = json.load(fh)["cpu_cores"]

cfg = configparser.ConfigParser()
cfg.read("/app/service.ini")
cfg["server"]["port"] = "8080"
cfg["server"]["workers"] = str(2 * cores)
cfg["logging"]["level"] = "warning"
cfg["tls"] = {"cert": "/etc/ssl/service.pem", "key": "/etc/ssl/service.key"}
with open("/app/service.ini", "w") as fh:
    cfg.write(fh)
PY

cat /app/service.ini
