package dev.conclave.agent;

/** Token accounting reported by the model provider. */
public record TokenUsage(int inputTokens, int outputTokens, int cacheReadTokens, int cacheWriteTokens,
                         int thinkingTokens) {

  public static TokenUsage of(int inputTokens, int outputTokens) {
    return new TokenUsage(inputTokens, outputTokens, 0, 0, 0);
  }
}
