package org.tapeq.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The content of an error file, {@code request/<pnfsid>.err}: a return code and a message. On disk the
 * first line is the return code and the rest the message. Parsing follows ENDIT: if the first line is not
 * an integer the code is {@link ReturnCodes#FAILED} and the whole text is the message; an empty file means
 * {@link ReturnCodes#FAILED} with a generic message.
 */
public final class ErrorReport {
    /** Messages are cut to this many characters so a huge error file cannot flood dCache's logs. */
    public static final int MAX_MESSAGE_LENGTH = 2000;
    private static final String CUT_MARK = " [...]";
    static final String EMPTY_FILE_MESSAGE = "the tape daemon reported a failure without a reason (empty error file)";

    private final int returnCode;
    private final String message;

    public ErrorReport(int returnCode, String message) {
        this.returnCode = returnCode;
        this.message = Objects.requireNonNull(message, "message");
    }

    public int returnCode() {
        return returnCode;
    }

    public String message() {
        return message;
    }

    /** Parses error-file content; never fails, because any content is a valid (if vague) report. */
    public static ErrorReport parse(byte[] content) {
        String text = new String(content, StandardCharsets.UTF_8).strip();
        if (text.isEmpty()) {
            return new ErrorReport(ReturnCodes.FAILED, EMPTY_FILE_MESSAGE);
        }
        int newline = text.indexOf('\n');
        String first = (newline < 0 ? text : text.substring(0, newline)).strip();
        Integer rc = parseInt(first);
        if (rc == null) {
            return new ErrorReport(ReturnCodes.FAILED, cut(text));
        }
        String rest = newline < 0 ? "" : text.substring(newline + 1).strip();
        return new ErrorReport(rc, rest.isEmpty() ? "the tape daemon reported return code " + rc : cut(rest));
    }

    /** The on-disk form: the return code on the first line, the message after it. */
    public byte[] toBytes() {
        return (returnCode + "\n" + message.strip() + "\n").getBytes(StandardCharsets.UTF_8);
    }

    private static Integer parseInt(String s) {
        if (s.isEmpty() || s.length() > 11) { // "-2147483648" has 11 characters
            return null;
        }
        try {
            return Integer.valueOf(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * The message cut so that it, the mark {@value #CUT_MARK} included, has at most {@link #MAX_MESSAGE_LENGTH}
     * characters: reading a written report back does not cut it again. Never cuts between the two halves of a
     * surrogate pair, as a lone half is written to disk as '?'.
     */
    private static String cut(String message) {
        if (message.length() <= MAX_MESSAGE_LENGTH) {
            return message;
        }
        int end = MAX_MESSAGE_LENGTH - CUT_MARK.length();
        if (Character.isHighSurrogate(message.charAt(end - 1))) {
            end--;
        }
        return message.substring(0, end) + CUT_MARK;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ErrorReport && ((ErrorReport) o).returnCode == returnCode
                && ((ErrorReport) o).message.equals(message);
    }

    @Override
    public int hashCode() {
        return 31 * returnCode + message.hashCode();
    }

    @Override
    public String toString() {
        return "rc=" + returnCode + " " + message;
    }
}
