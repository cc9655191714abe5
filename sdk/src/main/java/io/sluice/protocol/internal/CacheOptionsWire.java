package io.sluice.protocol.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.CacheConfig;
import io.sluice.WriteSyncMode;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A cache's options beyond its name, partitions and store: backups, write sync mode, reads from backups and the
 * indexes with their ids. The one layout of them, carried by every format that carries a {@link CacheConfig}: a
 * CREATE_CACHE request, the cluster catalogue's cache description, the log's OPTIONS record and the checkpoint
 * manifest. Each of those holds the block only when some option is not its default ({@link Options#isDefault}), so
 * bytes written before the options existed read as the defaults. Big-endian:
 *
 * <pre>
 * | bytes | meaning                                                                            |
 * |-------|------------------------------------------------------------------------------------|
 * | 1     | u8 backups (0..3)                                                                  |
 * | 1     | u8 write sync mode: 0 FULL_SYNC, 1 PRIMARY_SYNC, 2 FULL_ASYNC                      |
 * | 1     | u8 flags: bit 0 read from backup; other bits 0                                     |
 * | 2     | u16 next index id: every id below it was given out once (ids are never reused)     |
 * | 1     | u8 index count I                                                                   |
 * | ...   | I indexes, in declaration order: u16 index id (below the next index id, distinct), |
 * |       | u8 field count F (1..255), F strings (u16 length + UTF-8): the fields, in order    |
 * </pre>
 *
 * A client's request carries the ids 0..I-1 (declaration order); the node gives out its own.
 */
public final class CacheOptionsWire {

    /** The options of {@code CacheConfig.named(...)}: no backups, PRIMARY_SYNC, reads from primaries, no index. */
    public static final Options DEFAULTS = Options.of(CacheConfig.named("defaults"));

    private static final int FLAG_READ_FROM_BACKUP = 1;
    private static final WriteSyncMode[] MODES = WriteSyncMode.values();

    private CacheOptionsWire() {
    }

    /**
     * A cache's options and its indexes' ids.
     *
     * @param indexes     each index's fields, in declaration order
     * @param indexIds    each index's id (same order as {@code indexes})
     * @param nextIndexId the id the next index gets; every id below was given out once
     */
    public record Options(int backups, WriteSyncMode writeSync, boolean readFromBackup, List<List<String>> indexes,
                          List<Integer> indexIds, int nextIndexId) {

        public Options {
            Objects.requireNonNull(writeSync, "writeSync");
            indexes = List.copyOf(indexes.stream().map(List::copyOf).toList());
            indexIds = List.copyOf(indexIds);
            if (indexes.size() != indexIds.size()) {
                throw new IllegalArgumentException(indexes.size() + " indexes but " + indexIds.size() + " index ids");
            }
            if (indexes.size() > 255 || nextIndexId > 0xFFFF) {
                throw new IllegalArgumentException(indexes.size() + " indexes (next id " + nextIndexId
                        + "); a cache has at most 255 indexes and gives out at most 65,535 index ids");
            }
            for (List<String> index : indexes) {
                if (index.size() > 255) {
                    throw new IllegalArgumentException("index " + index.subList(0, 3) + "... has " + index.size()
                            + " fields; an index has at most 255");
                }
            }
        }

        /** The config's options, its indexes numbered 0.. in declaration order. */
        public static Options of(CacheConfig config) {
            List<Integer> ids = new ArrayList<>();
            for (int i = 0; i < config.indexes().size(); i++) {
                ids.add(i);
            }
            return new Options(config.backups(), config.writeSync(), config.readFromBackup(), config.indexes(), ids,
                    ids.size());
        }

        /**
         * The options of {@code config}, as changed from these: an index these have keeps its id, a new one gets the
         * next id (ids are never reused).
         */
        public Options changedTo(CacheConfig config) {
            List<Integer> ids = new ArrayList<>();
            int next = nextIndexId;
            for (List<String> index : config.indexes()) {
                int at = indexes.indexOf(index);
                ids.add(at >= 0 ? indexIds.get(at) : next++);
            }
            return new Options(config.backups(), config.writeSync(), config.readFromBackup(), config.indexes(), ids,
                    next);
        }

        /** Whether every option is its default and no index id was ever given out (nothing to write). */
        public boolean isDefault() {
            return equals(DEFAULTS);
        }

        /**
         * The config with the name, partitions and store of {@code base} and these options.
         *
         * @throws IllegalArgumentException if an option is out of range for {@link CacheConfig}
         */
        public CacheConfig applyTo(CacheConfig base) {
            CacheConfig config = CacheConfig.named(base.name()).withPartitions(base.partitions())
                    .withStore(base.store()).withBackups(backups).withWriteSync(writeSync)
                    .withReadFromBackup(readFromBackup);
            for (List<String> index : indexes) {
                config = config.index(index.toArray(String[]::new));
            }
            return config;
        }
    }

    /** Writes the block. */
    public static void write(ByteBuf out, Options options) {
        out.writeByte(options.backups());
        out.writeByte(options.writeSync().ordinal());
        out.writeByte(options.readFromBackup() ? FLAG_READ_FROM_BACKUP : 0);
        out.writeShort(options.nextIndexId());
        out.writeByte(options.indexes().size());
        for (int i = 0; i < options.indexes().size(); i++) {
            List<String> fields = options.indexes().get(i);
            out.writeShort(options.indexIds().get(i));
            out.writeByte(fields.size());
            for (String field : fields) {
                Wire.writeString(out, field);
            }
        }
    }

    /**
     * Reads a block.
     *
     * @throws Wire.MalformedFrameException if it is cut short or a value is out of range
     */
    public static Options read(ByteBuf in) {
        int backups = Wire.readByte(in, "backups");
        if (backups > CacheConfig.MAX_BACKUPS) {
            throw new Wire.MalformedFrameException("backups " + backups + " is more than " + CacheConfig.MAX_BACKUPS);
        }
        int mode = Wire.readByte(in, "write sync mode");
        if (mode >= MODES.length) {
            throw new Wire.MalformedFrameException("write sync mode " + mode + " is not one of 0.." + (MODES.length - 1));
        }
        int flags = Wire.readByte(in, "cache option flags");
        if ((flags & ~FLAG_READ_FROM_BACKUP) != 0) {
            throw new Wire.MalformedFrameException("cache option flags " + flags + " set unknown bits");
        }
        Wire.need(in, 3, "index count");
        int nextIndexId = in.readUnsignedShort();
        int count = in.readUnsignedByte();
        List<List<String>> indexes = new ArrayList<>(count);
        List<Integer> ids = new ArrayList<>(count);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < count; i++) {
            Wire.need(in, 3, "index");
            int id = in.readUnsignedShort();
            if (id >= nextIndexId || !seen.add(id)) {
                throw new Wire.MalformedFrameException("index id " + id + " is repeated or not below the next index id "
                        + nextIndexId);
            }
            int fieldCount = in.readUnsignedByte();
            if (fieldCount == 0) {
                throw new Wire.MalformedFrameException("index " + id + " has no field");
            }
            List<String> fields = new ArrayList<>(fieldCount);
            for (int f = 0; f < fieldCount; f++) {
                fields.add(Wire.readString(in, "index field"));
            }
            indexes.add(fields);
            ids.add(id);
        }
        Options options = new Options(backups, MODES[mode], flags != 0, indexes, ids, nextIndexId);
        try {
            options.applyTo(CacheConfig.named("check")); // blank or repeated fields, a repeated index
        } catch (IllegalArgumentException e) {
            throw new Wire.MalformedFrameException("cache options: " + e.getMessage());
        }
        return options;
    }

    /** The block as bytes (the log and the checkpoint keep it so). */
    public static byte[] toBytes(Options options) {
        ByteBuf out = Unpooled.buffer(16);
        try {
            write(out, options);
            byte[] bytes = new byte[out.readableBytes()];
            out.readBytes(bytes);
            return bytes;
        } finally {
            out.release();
        }
    }

    /**
     * Reads a block that fills {@code bytes}.
     *
     * @param where what held the bytes, for the message
     * @throws IllegalArgumentException if they are not one block
     */
    public static Options fromBytes(byte[] bytes, String where) {
        ByteBuf in = Unpooled.wrappedBuffer(bytes);
        try {
            Options options = read(in);
            if (in.isReadable()) {
                throw new Wire.MalformedFrameException(in.readableBytes() + " bytes follow the block");
            }
            return options;
        } catch (Wire.MalformedFrameException e) {
            throw new IllegalArgumentException("the cache options in " + where + " are malformed: " + e.getMessage(),
                    e);
        } finally {
            in.release();
        }
    }
}
