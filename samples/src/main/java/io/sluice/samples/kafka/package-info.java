/** {@code KafkaLoad}: fills a Kafka topic with StockOrder records for the sink connector's load tests. */
package io.sluice.samples.kafka;
