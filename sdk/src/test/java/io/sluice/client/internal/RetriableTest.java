package io.sluice.client.internal;

import io.sluice.CacheNotFoundException;
import io.sluice.DataRegionFullException;
import io.sluice.NodeUnreachableException;
import io.sluice.SluiceException;
import io.sluice.client.ClientConfig;
import io.sluice.protocol.internal.ErrorKind;
import org.junit.jupiter.api.Test;

import java.net.ConnectException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetriableTest {

    @Test
    void aLostOrRefusedConnectionIsRetriedAndCountsAgainstTheNode() {
        ConnectionLostException refused = new ConnectionLostException("cannot connect to the node at 127.0.0.1:1",
                new ConnectException("Connection refused"));
        assertThat(Retriable.isRetriable(refused)).isTrue();
        assertThat(Retriable.isNodeFailure(refused)).isTrue();
        assertThat(Retriable.isRetriable(new CompletionException(refused))).isTrue();
        assertThat(Retriable.isRetriable(new ExecutionException(new CompletionException(refused)))).isTrue();
    }

    @Test
    void aNodeThatIsStoppingOrBusyIsRetried() {
        RuntimeException stopping = ErrorKind.NODE_STOPPING.toException("the node is stopping", "orders");
        assertThat(stopping).isInstanceOf(RejectedExecutionException.class);
        assertThat(Retriable.isRetriable(stopping)).isTrue();
        assertThat(Retriable.isNodeFailure(stopping)).isTrue();
    }

    @Test
    void aTimeoutIsNotRetriedButCountsAgainstTheNode() {
        NodeUnreachableException timeout = new NodeUnreachableException("the node 'n' at 127.0.0.1:1 did not answer"
                + " within PT10S (ClientConfig.requestTimeout)");
        assertThat(Retriable.isRetriable(timeout)).isFalse();
        assertThat(Retriable.isNodeFailure(timeout)).isTrue();
    }

    @Test
    void whatTheNodeAnsweredIsNeitherRetriedNorAFailureOfTheNode() {
        for (RuntimeException answered : new RuntimeException[] {
                new CacheNotFoundException("orders"), new DataRegionFullException("full"),
                new IllegalArgumentException("bad"), new IllegalStateException("closed client"),
                new NullPointerException("key"), new SluiceException("the node refused the connection: token"),
                ErrorKind.MALFORMED_REQUEST.toException("bad op", null), ErrorKind.INTERNAL.toException("x", null)}) {
            assertThat(Retriable.isRetriable(answered)).as("%s", answered).isFalse();
            assertThat(Retriable.isNodeFailure(answered)).as("%s", answered).isFalse();
        }
    }

    @Test
    void retrySettingsAreValidatedNamingTheOption() {
        ClientConfig defaults = ClientConfig.addresses("127.0.0.1:10800");
        assertThat(defaults.retryAttempts()).isEqualTo(ClientConfig.DEFAULT_RETRY_ATTEMPTS);
        assertThat(defaults.retryInitialBackoff()).isEqualTo(ClientConfig.DEFAULT_RETRY_INITIAL_BACKOFF);
        assertThatThrownBy(() -> ClientConfig.builder().retryAttempts(0))
                .hasMessageContaining("ClientConfig.retryAttempts");
        assertThatThrownBy(() -> ClientConfig.builder().retryInitialBackoff(Duration.ZERO))
                .hasMessageContaining("ClientConfig.retryInitialBackoff");
        assertThatThrownBy(() -> ClientConfig.builder().retryInitialBackoff(Duration.ofMinutes(1)))
                .hasMessageContaining("ClientConfig.retryInitialBackoff");
        assertThatThrownBy(() -> ClientConfig.builder().circuitBreakerFailureRate(101))
                .hasMessageContaining("ClientConfig.circuitBreakerFailureRate");
        assertThatThrownBy(() -> ClientConfig.builder().circuitBreakerWaitInOpenState(Duration.ofSeconds(-1)))
                .hasMessageContaining("ClientConfig.circuitBreakerWaitInOpenState");
        assertThat(ClientConfig.builder().addresses("h:1").retryAttempts(1).build().retryAttempts()).isEqualTo(1);
    }
}
