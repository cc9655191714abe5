/**
 * Node side: the receivers that apply streamed batches to a partition's store. The built-ins
 * ({@link io.sluice.receiver.internal.IsolatedReceiver}, {@link io.sluice.receiver.internal.IndividualReceiver},
 * {@link io.sluice.receiver.internal.BatchedReceiver}) write encoded bytes straight into the store;
 * {@link io.sluice.receiver.internal.CustomReceiverAdapter} decodes them for a user's
 * {@link io.sluice.StreamReceiver}. Internal to the node: may change without notice.
 */
package io.sluice.receiver.internal;
