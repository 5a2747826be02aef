#!/bin/bash
set -euo pipefail

readonly LOG_DIR=/tmp/logs

log() {
  echo "$@" >> "$LOG_DIR/out.log"
}

function cleanup {
  rm -rf "$LOG_DIR"
}

log "start"
cleanup
