package io.sluice.binary.internal;

import io.sluice.SluiceException;

/**
 * Writes a class's properties through its {@link ClassLayout}'s method-handle accessors: the writer of a class
 * {@link PojoWriters} cannot generate one for, and the reference the generated ones are tested against.
 */
final class ReflectivePojoWriter implements PojoWriter {

    private final ClassLayout layout;

    ReflectivePojoWriter(ClassLayout layout) {
        this.layout = layout;
    }

    @Override
    public void write(Object pojo, GrowableBuffer out, BinaryContext context, int[] offsets, int base) {
        ClassLayout.Property[] props = layout.properties;
        ValueEncoder encoder = context.encoder();
        for (int i = 0; i < props.length; i++) {
            offsets[i] = out.position() - base;
            try {
                props[i].write(pojo, out, encoder);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new SluiceException("reading field '" + props[i].name + "' of " + layout.cls.getName()
                        + " failed", e);
            }
        }
    }
}
