package io.sluice.streamer.internal;

/**
 * The staging memory of a streamer's partition buffers: {@value #PARTITIONS_PER_BLOCK} partitions share one array, each
 * owning a slot of {@link PartitionBuffer#STAGE} bytes at {@code (partition % PARTITIONS_PER_BLOCK) * STAGE}. A block
 * is allocated by the first entry of any of its partitions and kept for the streamer's life.
 *
 * <p>Why shared arrays: an adding thread visits the partitions' slots in hash order, one entry each. With an array
 * per partition every visit also read that array's own header line (for the copy's bounds check), one more line
 * out of cache per entry; a block's header is shared by its partitions' visits and stays cached.
 *
 * <p>Thread-safe: buffers of different partitions (different locks) may ask for the same block at once.
 */
final class StagingBlocks {

    /** Partitions whose slots share one array. */
    static final int PARTITIONS_PER_BLOCK = 64;

    private final byte[][] blocks;

    StagingBlocks(int partitions) {
        this.blocks = new byte[(partitions + PARTITIONS_PER_BLOCK - 1) / PARTITIONS_PER_BLOCK][];
    }

    /** The array holding the partition's slot; allocates its block the first time. */
    byte[] block(int partition) {
        int index = partition / PARTITIONS_PER_BLOCK;
        synchronized (blocks) {
            byte[] block = blocks[index];
            if (block == null) {
                block = new byte[PARTITIONS_PER_BLOCK * PartitionBuffer.STAGE];
                blocks[index] = block;
            }
            return block;
        }
    }

    /** Where the partition's slot starts in its block. */
    static int slot(int partition) {
        return (partition % PARTITIONS_PER_BLOCK) * PartitionBuffer.STAGE;
    }
}
