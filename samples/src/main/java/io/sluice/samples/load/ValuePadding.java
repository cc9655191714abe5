package io.sluice.samples.load;

import java.util.function.IntUnaryOperator;

/** Finds the padding that brings an encoded value to a target size ({@code --value-size}). */
final class ValuePadding {

    private ValuePadding() {
    }

    /** A padding string of {@code length} ASCII characters. */
    static String padding(int length) {
        return "x".repeat(length);
    }

    /**
     * The padding for a target size.
     *
     * @param targetSize   the encoded size wanted, or 0 for the natural size (no padding)
     * @param what         what is being padded, for the error message
     * @param encodedSize  the encoded size with a padding of the given length, or without padding for -1
     * @return the padding, or {@code null} if none is needed
     * @throws ValueSizeException if the target is smaller than the unpadded size
     */
    static String padFor(int targetSize, String what, IntUnaryOperator encodedSize) {
        if (targetSize == 0) {
            return null;
        }
        int natural = encodedSize.applyAsInt(-1);
        if (targetSize < natural) {
            throw new ValueSizeException("--value-size is " + targetSize + " bytes; the " + what
                    + " takes " + natural + " bytes without padding, so it must be 0 (natural size) or at least "
                    + natural);
        }
        if (targetSize == natural) {
            return null;
        }
        // The length prefix of the padding may grow with it (varints): converge in a few steps.
        int length = 0;
        for (int step = 0; step < 8; step++) {
            int size = encodedSize.applyAsInt(length);
            if (size == targetSize) {
                break;
            }
            length = Math.max(0, length + targetSize - size);
        }
        return padding(length);
    }

    /** {@code --value-size} is smaller than the value without padding. */
    static final class ValueSizeException extends IllegalArgumentException {
        ValueSizeException(String message) {
            super(message);
        }
    }
}
