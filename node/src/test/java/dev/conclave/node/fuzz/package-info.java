/**
 * The node's fuzz suite: one real node with every role ({@link dev.conclave.node.fuzz.FuzzNode}), driven
 * with thousands of generated malformed inputs per surface, generated and shrunk by jqwik:
 * <ul>
 *   <li>{@link dev.conclave.node.fuzz.HttpFuzzTest}: HTTP JSON on every route of the route table, and the session endpoint;</li>
 *   <li>{@link dev.conclave.node.fuzz.GrpcFuzzTest}: raw gRPC frames (HTTP/2) on every method, the open services, unknown methods;</li>
 *   <li>{@link dev.conclave.node.fuzz.BridgeFuzzTest}: WebSocket frames on the event-bus bridge (raw and SockJS);</li>
 *   <li>{@link dev.conclave.node.fuzz.SessionFuzzTest}: WebSocket frames on the session protocol ({@code /api/v1/sessions});</li>
 *   <li>{@link dev.conclave.node.fuzz.FileTransportFuzzTest}: request files of the swarm's file transport;</li>
 *   <li>{@link dev.conclave.node.fuzz.GrantRevocationRaceFuzzTest}: a grant taken back at a generated moment while events
 *   flow; nothing written after the revoke's answer may reach the grantee's StreamEvents, bridge subscription or session socket.</li>
 *   <li>{@link dev.conclave.node.fuzz.ClientMistakesTest}: the caller's mistakes a security probe found answered or logged
 *   as server faults (the security probe), sent on purpose.</li>
 * </ul>
 * Every try asserts: no 5xx and no INTERNAL or UNKNOWN status (refusals are 4xx problem+json over HTTP); no
 * Java class name in any answer; nothing logged with a stack trace or at ERROR. After each property: the
 * node is ready (HTTP readiness, a gRPC call, the connected agent's stream) and its heap after GC is
 * within bounds of what it was after start-up.
 *
 * <p>Run it alone: {@code mvn -B -ntp -pl node -am test -Dtest='*FuzzTest' -Dsurefire.failIfNoSpecifiedTests=false}.
 * A failure names the (shrunk) input and what came back; jqwik prints the seed, and replays a failed
 * property's seed first on the next run (its database is {@code node/target/jqwik-database}). Add
 * {@code -Dconclave.fuzz.survey=true} to run every try and get, per surface, the list of every distinct
 * failure (grouped by kind, with the routes or methods it was seen on and the shortest input) instead of
 * the first one.
 */
package dev.conclave.node.fuzz;
