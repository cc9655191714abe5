/**
 * Internal: the node jar's commands besides running a node ({@code java -jar sluice-node.jar COMMAND}):
 * {@link io.sluice.server.internal.command.StatusCommand} (the cluster's map and every member's status, through
 * an {@link io.sluice.server.internal.command.AdminConnection} each, gathered in
 * {@link io.sluice.server.internal.command.StatusReport}), and the commands for a cluster's set-up. Each is a
 * picocli command of its own; only the one that runs touches the cluster module. May change without notice.
 */
package io.sluice.server.internal.command;
