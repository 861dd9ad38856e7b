package org.tapeq.bench;

import java.lang.management.ManagementFactory;

import javax.management.ObjectName;

/**
 * The classes that hold the most of the live heap, as {@code jcmd <pid> GC.class_histogram} prints them (it
 * runs a full GC first), read through the JVM's own diagnostic command bean so that the benchmark needs no
 * external tool.
 */
final class HeapHistogram {

    private HeapHistogram() {
    }

    /** The histogram's header and its first {@code top} classes, or a line saying why there is none. */
    static String top(int top) {
        try {
            String all = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
            StringBuilder out = new StringBuilder();
            String[] lines = all.split("\n");
            for (int i = 0; i < lines.length && i < top + 2; i++) {
                out.append("  ").append(lines[i]).append('\n');
            }
            String total = lines[lines.length - 1];
            return out.append("  ...\n  ").append(total).append('\n').toString();
        } catch (Exception e) {
            return "  (no class histogram: " + e + ")\n";
        }
    }
}
