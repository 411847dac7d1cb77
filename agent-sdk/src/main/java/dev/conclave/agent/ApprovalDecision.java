package dev.conclave.agent;

/**
 * A human's answer to {@link ResponseStream#requestApproval}.
 *
 * @param toolId the tool invocation the decision is about
 * @param approved run the tool
 * @param approveAll every further approval in the same request is granted without asking
 * @param automatic true when no question went to the gateway because an earlier decision in the
 *                  same request approved all
 */
public record ApprovalDecision(String toolId, boolean approved, boolean approveAll, boolean automatic) {
}
