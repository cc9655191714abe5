/**
 * Node side: the receivers that apply streamed batches to a partition's store. The built-ins
 * ({@link io.sluice.receiver.IsolatedReceiver}, {@link io.sluice.receiver.IndividualReceiver},
 * {@link io.sluice.receiver.BatchedReceiver}) write encoded bytes straight into the store;
 * {@link io.sluice.receiver.CustomReceiverAdapter} decodes them for a user's
 * {@link io.sluice.StreamReceiver}. Internal to the node: may change without notice.
 */
package io.sluice.receiver;
