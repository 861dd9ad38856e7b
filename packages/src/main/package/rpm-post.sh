# After installing: systemd learns of the unit. It is not enabled: /etc/tapeq/tapeq.yaml needs the site's settings first.
if [ -d /run/systemd/system ]; then
    systemctl daemon-reload >/dev/null 2>&1 || :
fi
