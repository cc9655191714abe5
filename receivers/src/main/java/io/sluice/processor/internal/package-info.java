/**
 * Internal: entry processors on the node. {@link io.sluice.processor.internal.ProcessorRegistry}
 * holds, per apply thread, the built-in field processors ({@link
 * io.sluice.processor.internal.FieldProcessors}) and the custom ones
 * ({@link io.sluice.processor.internal.CustomProcessorAdapter}); {@link
 * io.sluice.processor.internal.Invocation} runs one over a partition's keys in one sorted pass under
 * the partition's write lock, for {@code Cache.invoke}/{@code invokeAll} and the transformer receiver.
 * May change without notice.
 */
package io.sluice.processor.internal;
