# Before removal ($1 = 0; not before an upgrade): stop and disable the daemon.
if [ "$1" -eq 0 ] && [ -d /run/systemd/system ]; then
    systemctl --no-reload disable --now tapeq.service >/dev/null 2>&1 || :
fi
