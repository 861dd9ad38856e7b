package org.tapeq.daemon.control;

/**
 * Which entries of the status's paged lists (the scheduler's queues, each directory's parked flushes) one status
 * shows: {@code offset} to {@code offset + limit - 1} of each list's own order. Their totals are always shown.
 *
 * @param offset the first entry shown, 0 for the first
 * @param limit  at most this many entries of each list, 0 to {@link #MAX_LIMIT}
 */
public record StatusPage(int offset, int limit) {

    /** Entries of each paged list when no limit is asked for. */
    public static final int DEFAULT_LIMIT = 50;
    /** The most entries of each paged list one status shows. */
    public static final int MAX_LIMIT = 1000;
    /** The first {@link #DEFAULT_LIMIT} entries. */
    public static final StatusPage FIRST = new StatusPage(0, DEFAULT_LIMIT);

    /** @throws IllegalArgumentException naming the parameter, for a negative offset or a limit out of range */
    public StatusPage {
        if (offset < 0) {
            throw new IllegalArgumentException("status offset must be 0 or more, not " + offset);
        }
        if (limit < 0 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("status limit must be 0.." + MAX_LIMIT + ", not " + limit);
        }
    }

    /**
     * The page a URL query asks for ({@code offset=N&limit=N}, either or both; other keys are ignored), or
     * {@link #FIRST} for none.
     *
     * @throws IllegalArgumentException naming the parameter, for a value that is not a number or out of range
     */
    public static StatusPage ofQuery(String query) {
        int offset = 0;
        int limit = DEFAULT_LIMIT;
        if (query != null) {
            for (String pair : query.split("&")) {
                int eq = pair.indexOf('=');
                String key = eq < 0 ? pair : pair.substring(0, eq);
                String value = eq < 0 ? "" : pair.substring(eq + 1);
                if (key.equals("offset")) {
                    offset = number(value, "offset");
                } else if (key.equals("limit")) {
                    limit = number(value, "limit");
                }
            }
        }
        return new StatusPage(offset, limit);
    }

    static int number(String text, String what) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("status " + what + " must be a number, not '" + text + "'");
        }
    }
}
