package io.sluice.pagestore.internal.page;

import io.sluice.DataRegionFullException;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The next chunk is taken on a thread of its own once half of the newest one's pages are handed out. */
class PageMemoryAheadTest {

    private static final int PAGE = 4096;
    private static final int PAGES_PER_CHUNK = (64 << 20) / PAGE;

    /** Heap chunks, recording which thread asked for each; an allocation may be held at a gate. */
    private static final class Recording implements ChunkAllocator {
        final List<String> threads = new CopyOnWriteArrayList<>();
        final List<ByteBuffer> freed = new CopyOnWriteArrayList<>();
        volatile CountDownLatch gate;
        volatile int refuseFrom = Integer.MAX_VALUE; // the allocations from this one on are refused
        volatile int errorAt = Integer.MAX_VALUE; // this allocation throws an Error

        @Override
        public ByteBuffer allocate(int bytes) {
            threads.add(Thread.currentThread().getName());
            if (threads.size() > refuseFrom) {
                throw new ChunkRefusedException("refused for the test", null);
            }
            if (threads.size() == errorAt) {
                throw new InternalError("a mapping the system could not back, for the test");
            }
            CountDownLatch g = gate;
            if (g != null) {
                try {
                    g.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return ByteBuffer.allocate(bytes);
        }

        @Override
        public void free(ByteBuffer chunk) {
            freed.add(chunk);
        }

        @Override
        public String describe() {
            return "heap, recorded";
        }
    }

    @Test
    void theNextChunkIsTakenAheadOffTheAllocatingThread() {
        Recording allocator = new Recording();
        try (PageMemory memory = new PageMemory(PAGE, PAGE, 4L * PAGES_PER_CHUNK * PAGE, allocator)) {
            assertThat(allocator.threads).hasSize(1); // the initial chunk, by the constructor
            long page = 0;
            while (page < PAGES_PER_CHUNK / 2 - 1) {
                page = memory.allocatePage();
            }
            assertThat(allocator.threads).as("before half of chunk 0 is handed out").hasSize(1);
            page = memory.allocatePage(); // the half
            await().atMost(Duration.ofSeconds(10)).until(() -> allocator.threads.size() == 2);
            assertThat(allocator.threads.get(1)).isEqualTo("sluice-page-memory-ahead");
            while (page < PAGES_PER_CHUNK + 1) { // into chunk 1: no allocation on this thread
                page = memory.allocatePage();
            }
            memory.buffer(page).putLong(memory.offset(page), 42); // the page is there
            assertThat(memory.buffer(page).getLong(memory.offset(page))).isEqualTo(42);
            assertThat(allocator.threads).hasSize(2);
        }
        assertThat(allocator.freed).hasSize(2);
    }

    @Test
    void aPageOfAChunkBeingTakenWaitsForItAndCloseGivesItBack() throws Exception {
        Recording allocator = new Recording();
        CompletableFuture<Long> firstOfChunk1 = new CompletableFuture<>();
        PageMemory memory = new PageMemory(PAGE, PAGE, 4L * PAGES_PER_CHUNK * PAGE, allocator);
        try {
            allocator.gate = new CountDownLatch(1);
            long page = 0;
            while (page < PAGES_PER_CHUNK - 1) { // the half started the mapping, held at the gate
                page = memory.allocatePage();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> allocator.threads.size() == 2);
            Thread taker = new Thread(() -> firstOfChunk1.complete(memory.allocatePage()));
            taker.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> taker.getState() == Thread.State.WAITING);
            assertThat(firstOfChunk1).isNotDone();
            allocator.gate.countDown();
            assertThat(firstOfChunk1.get(10, TimeUnit.SECONDS)).isEqualTo(PAGES_PER_CHUNK);
            assertThat(allocator.threads).as("the waiting thread took no chunk of its own").hasSize(2);
        } finally {
            memory.close();
        }
        assertThat(allocator.freed).hasSize(2);

        // a chunk still being taken when the memory closes goes back too, before close returns
        Recording late = new Recording();
        PageMemory closing = new PageMemory(PAGE, PAGE, 4L * PAGES_PER_CHUNK * PAGE, late);
        late.gate = new CountDownLatch(1);
        for (int i = 0; i < PAGES_PER_CHUNK / 2; i++) {
            closing.allocatePage();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> late.threads.size() == 2);
        Thread closer = new Thread(closing::close);
        closer.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> closer.getState() == Thread.State.WAITING);
        assertThat(late.freed).as("close waits for the chunk being taken").isEmpty();
        late.gate.countDown();
        closer.join(10_000);
        assertThat(closer.isAlive()).isFalse();
        assertThat(late.freed).hasSize(2);
    }

    @Test
    void expectedPagesHaveTheirChunksTakenAheadOneAfterAnother() {
        Recording allocator = new Recording();
        PageMemory memory = new PageMemory(PAGE, PAGE, 4L * PAGES_PER_CHUNK * PAGE, allocator);
        try {
            memory.allocatePage();
            memory.expect(3L * PAGES_PER_CHUNK - 2); // up to page 3 * PAGES_PER_CHUNK - 1: chunks 1 and 2
            await().atMost(Duration.ofSeconds(10)).until(() -> allocator.threads.size() == 3);
            assertThat(allocator.threads.subList(1, 3)).containsOnly("sluice-page-memory-ahead");
        } finally {
            memory.close(); // waits for a chunk still being taken
        }
        assertThat(allocator.threads).as("no chunk past the expected pages").hasSize(3);
        assertThat(allocator.freed).hasSize(3);
    }

    @Test
    void aChunkRefusedAheadFailsItsPagesWhenNeededWithoutAskingAgain() {
        Recording allocator = new Recording();
        allocator.refuseFrom = 1; // the initial chunk only
        try (PageMemory memory = new PageMemory(PAGE, PAGE, 4L * PAGES_PER_CHUNK * PAGE, allocator)) {
            for (int i = 0; i < PAGES_PER_CHUNK / 2; i++) {
                memory.allocatePage();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> allocator.threads.size() == 2);
            long page = 0;
            while (page < PAGES_PER_CHUNK - 1) { // the rest of chunk 0 is there
                page = memory.allocatePage();
            }
            assertThatThrownBy(memory::allocatePage).isInstanceOf(DataRegionFullException.class)
                    .hasMessageContaining("refused for the test");
            assertThat(allocator.threads).as("nothing asked the system again").hasSize(2);
        }
    }
    @Test
    @org.junit.jupiter.api.Timeout(60) // without the mend, the page of the failed chunk was waited for for ever
    void anErrorWhileTakingAChunkAheadLeavesTheChunkToTheThreadThatNeedsIt() {
        Recording allocator = new Recording();
        allocator.errorAt = 2; // the first chunk taken ahead
        try (PageMemory memory = new PageMemory(PAGE, PAGE, 4L * PAGES_PER_CHUNK * PAGE, allocator)) {
            for (int i = 0; i < PAGES_PER_CHUNK / 2; i++) {
                memory.allocatePage();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> allocator.threads.size() == 2);
            long page = 0;
            while (page < PAGES_PER_CHUNK) { // through chunk 0 into chunk 1: no waiting for ever on the failed one
                page = memory.allocatePage();
            }
            assertThat(allocator.threads).as("chunk 1 taken by the thread that needed it").hasSize(3);
            assertThat(allocator.threads.get(2)).isEqualTo(Thread.currentThread().getName());
        }
    }
}
