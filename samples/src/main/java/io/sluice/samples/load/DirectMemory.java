package io.sluice.samples.load;

import com.sun.management.HotSpotDiagnosticMXBean;

import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * The JVM's direct-memory limit, which bounds every node's off-heap data region. Unless
 * {@code -XX:MaxDirectMemorySize} is set it equals the maximum heap, so a small {@code -Xmx} alone
 * leaves too little room for a large load.
 */
final class DirectMemory {

    private DirectMemory() {
    }

    /** The limit in bytes: {@code -XX:MaxDirectMemorySize}, or the maximum heap when it is not set. */
    static long limit() {
        try {
            HotSpotDiagnosticMXBean hotSpot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            long set = Long.parseLong(hotSpot.getVMOption("MaxDirectMemorySize").getValue());
            return set > 0 ? set : Runtime.getRuntime().maxMemory();
        } catch (RuntimeException | LinkageError notHotSpot) {
            return Runtime.getRuntime().maxMemory();
        }
    }

    /**
     * A warning when a data region may grow past the direct-memory limit, else {@code null}.
     *
     * @param regionBytes the most a node's data region may take
     * @param limit       the direct-memory limit
     */
    static String warning(long regionBytes, long limit) {
        if (regionBytes <= limit) {
            return null;
        }
        long suggestion = Math.max(1, (regionBytes + (1L << 30) - 1) >> 30);
        return String.format(Locale.ROOT, "warning: a node's data region may take up to %,d MiB of direct memory, "
                        + "but -XX:MaxDirectMemorySize is %,d MiB (it defaults to -Xmx); a mode whose store outgrows "
                        + "it fails with a full data region: run java with -XX:MaxDirectMemorySize=%dg",
                regionBytes >> 20, limit >> 20, suggestion);
    }
}
