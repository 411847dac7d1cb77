package dev.conclave.agentruntime.backend.openai;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Where the OpenAI-compatible server is and how to call it.
 *
 * @param baseUrl the API root, for example {@code https://api.openai.com/v1}; {@code /chat/completions} is added
 * @param model the model name sent with every request
 * @param apiKey the key, looked up at each request (it may come from {@code Welcome.secrets}); empty for none
 * @param idleTimeout how long the stream may stay silent before the call is given up
 * @param maxToolRounds how many model calls one message may take when the model keeps calling tools
 */
public record OpenAiSettings(String baseUrl, String model, Supplier<String> apiKey, Duration idleTimeout,
                             int maxToolRounds) {
}
