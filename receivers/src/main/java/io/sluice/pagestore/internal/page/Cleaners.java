package io.sluice.pagestore.internal.page;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;

/**
 * Frees a direct or mapped buffer's memory now rather than when the collector finds it unreachable,
 * through {@code sun.misc.Unsafe.invokeCleaner} (module jdk.unsupported, kept for exactly this use).
 * Where that is not available, the buffer is left to the collector.
 */
final class Cleaners {

    private static final Object UNSAFE;
    private static final Method INVOKE_CLEANER;

    static {
        Object unsafe = null;
        Method invoke = null;
        try {
            Class<?> type = Class.forName("sun.misc.Unsafe");
            Field field = type.getDeclaredField("theUnsafe");
            field.setAccessible(true);
            unsafe = field.get(null);
            invoke = type.getMethod("invokeCleaner", ByteBuffer.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // No cleaner: buffers are freed by the collector.
        }
        UNSAFE = unsafe;
        INVOKE_CLEANER = invoke;
    }

    private Cleaners() {
    }

    /** Whether {@link #clean} frees memory at once. */
    static boolean available() {
        return INVOKE_CLEANER != null;
    }

    static void clean(ByteBuffer buffer) {
        if (INVOKE_CLEANER == null || !buffer.isDirect()) {
            return;
        }
        try {
            INVOKE_CLEANER.invoke(UNSAFE, buffer);
        } catch (ReflectiveOperationException e) {
            // left to the collector
        }
    }
}
