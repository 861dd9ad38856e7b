# After removing: systemd forgets or reloads the unit; after an upgrade ($1 >= 1) a running daemon is restarted.
# Removal keeps /var/lib/tapeq (the catalog) and the user tapeq.
if [ -d /run/systemd/system ]; then
    systemctl daemon-reload >/dev/null 2>&1 || :
    if [ "$1" -ge 1 ]; then
        systemctl try-restart tapeq.service >/dev/null 2>&1 || :
    fi
fi
