package io.sluice.samples.load;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/** CPU time used so far by this whole process: every thread, the JIT's and the collector's included. */
final class ProcessCpu {

    private static final OperatingSystemMXBean OS = ManagementFactory.getOperatingSystemMXBean();

    private ProcessCpu() {
    }

    /** Nanoseconds of CPU time, or 0 on a JVM that cannot tell (then no entries/CPU-s are shown). */
    static long nanos() {
        if (OS instanceof com.sun.management.OperatingSystemMXBean os) {
            return Math.max(0, os.getProcessCpuTime());
        }
        return 0;
    }
}
