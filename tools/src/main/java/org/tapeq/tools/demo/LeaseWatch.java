package org.tapeq.tools.demo;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The demo's view of the site lease: a thread ({@code tapeq-demo-lease}) reads the lease row every
 * {@link #POLL_MILLIS} and counts each rise of its epoch (a takeover: a standby, or a restarted daemon, took the
 * site over). Reads only; a read that fails is tried again at the next poll.
 */
final class LeaseWatch implements AutoCloseable {

    static final long POLL_MILLIS = 100;

    private final String url;
    private final String site;
    private final Thread thread;
    private volatile long epoch;
    private volatile int takeovers;
    private volatile boolean stop;

    private LeaseWatch(String url, String site) {
        this.url = url;
        this.site = site;
        this.thread = new Thread(this::watch, "tapeq-demo-lease");
        this.thread.setDaemon(true);
    }

    static LeaseWatch start(String url, String site) throws SQLException {
        LeaseWatch w = new LeaseWatch(url, site);
        try (Connection c = DriverManager.getConnection(url)) {
            w.epoch = w.read(c);
        }
        w.thread.start();
        return w;
    }

    /** The newest epoch seen (0: no lease yet). */
    long epoch() {
        return epoch;
    }

    /** Rises of the epoch seen since the watch started. */
    int takeovers() {
        return takeovers;
    }

    private long read(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT epoch FROM site_lease WHERE site = ?")) {
            ps.setString(1, site);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    private void watch() {
        while (!stop) {
            try (Connection c = DriverManager.getConnection(url)) {
                while (!stop) {
                    long now = read(c);
                    if (now > epoch) {
                        takeovers++;
                        epoch = now;
                    }
                    Thread.sleep(POLL_MILLIS);
                }
            } catch (SQLException e) {
                pause();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void pause() {
        try {
            Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
            stop = true;
        }
    }

    @Override
    public void close() {
        stop = true;
        thread.interrupt();
    }
}
