/** The Kafka Connect sink connector (not built yet). */
package io.sluice.connect.kafka;
