package io.sluice.streamer.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(30)
class BufferMemoryTest {

    @Test
    void reservesUpToTheLimitAndNoMore() {
        BufferMemory memory = new BufferMemory(100);
        assertThat(memory.tryReserve(60)).isTrue();
        assertThat(memory.tryReserve(40)).isTrue();
        assertThat(memory.tryReserve(1)).isFalse();
        memory.release(10);
        assertThat(memory.tryReserve(11)).isFalse();
        assertThat(memory.tryReserve(10)).isTrue();
        assertThat(memory.used()).isEqualTo(100);
    }

    @Test
    void anAmountLargerThanTheLimitIsGrantedOnlyWhenNothingIsReserved() {
        BufferMemory memory = new BufferMemory(100);
        assertThat(memory.tryReserve(1)).isTrue();
        assertThat(memory.tryReserve(150)).isFalse();
        memory.release(1);
        assertThat(memory.tryReserve(150)).isTrue();
    }

    @Test
    void aWaiterResumesWhenMemoryIsReleased() throws Exception {
        BufferMemory memory = new BufferMemory(100);
        memory.tryReserve(100);
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return memory.reserve(50, TimeUnit.SECONDS.toNanos(20));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        memory.release(50);
        assertThat(waiter.get(20, TimeUnit.SECONDS)).isTrue();
        assertThat(memory.used()).isEqualTo(100);
    }

    @Test
    void aWaiterGivesUpAfterItsTime() throws InterruptedException {
        BufferMemory memory = new BufferMemory(100);
        memory.tryReserve(100);
        assertThat(memory.reserve(1, TimeUnit.MILLISECONDS.toNanos(20))).isFalse();
        assertThat(memory.used()).isEqualTo(100);
    }

    @Test
    void closingFailsWaiters() {
        BufferMemory memory = new BufferMemory(100);
        memory.tryReserve(100);
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return memory.reserve(50, TimeUnit.SECONDS.toNanos(20));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        memory.close();
        assertThatThrownBy(waiter::join).hasCauseInstanceOf(BufferMemory.Closed.class);
    }
}
