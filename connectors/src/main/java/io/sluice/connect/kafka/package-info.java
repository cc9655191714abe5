/**
 * The Kafka Connect sink: {@link io.sluice.connect.kafka.SluiceSinkConnector} streams topic records into
 * Sluice caches through the remote client; {@link io.sluice.connect.kafka.SluiceSinkConfig} declares
 * every option; {@link io.sluice.connect.kafka.SluiceSinkTask} states the delivery guarantees. Install
 * and configuration: {@code docs/kafka-connect.md}.
 */
package io.sluice.connect.kafka;
