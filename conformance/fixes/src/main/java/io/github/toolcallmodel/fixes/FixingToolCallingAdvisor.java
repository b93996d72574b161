package io.github.toolcallmodel.fixes;

import java.util.List;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.ai.chat.client.advisor.api.AdvisorChain;
import org.springframework.ai.chat.client.advisor.api.BaseChatMemoryAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionEligibilityChecker;

/**
 * Spring AI 2.0.1's {@link ToolCallingAdvisor} with the loop's part of
 * {@code close-dangling-calls}: when a batch ends the loop (a limit breach under
 * {@code THROW}, a {@code returnDirect} batch, a batch that failed), the tool
 * message that answers its calls, which {@link FixingToolCallingManager} wrote,
 * is handed to every memory advisor inside the loop (ordered after this one)
 * through its own {@code before}, as the next request of the loop would have
 * handed it. Without it, a memory inside the loop keeps the calls with no
 * response and Gemini rejects every later request built from it.
 *
 * <p>
 * Everything else is {@code ToolCallingAdvisor}'s own loop. Register its
 * {@link Builder} as the {@code ToolCallingAdvisor.Builder} bean (the
 * auto-configuration does) so that {@code ChatClient} registers it itself,
 * turning the conversation history off when a memory sits inside the loop.
 *
 * <p>
 * Where the auto-configuration built it, each loop also reports its request
 * path to {@link RequestPaths}, which decides {@code close-dangling-calls} for
 * the request from the advisor chain as it stands: on when a memory advisor
 * comes after this one (inside the loop), however it was added.
 *
 * <p>
 * On {@code stream()} the loop is Spring's too; the slot the manager offers the
 * closing message to travels in the stream's Reactor context (Spring runs each
 * batch on a {@code boundedElastic} thread), and the hand-off happens when the
 * stream completes or fails, before the caller sees either.
 */
public class FixingToolCallingAdvisor extends ToolCallingAdvisor {

	protected FixingToolCallingAdvisor(ToolCallingManager toolCallingManager,
			ToolExecutionEligibilityChecker toolExecutionEligibilityChecker, int advisorOrder,
			boolean conversationHistoryEnabled) {
		super(toolCallingManager, toolExecutionEligibilityChecker, advisorOrder, conversationHistoryEnabled);
	}

	/** Where the loops report their paths ({@code null}: nothing is reported or decided per request). */
	RequestPaths paths;

	@Override
	public String getName() {
		return "Fixing Tool Calling Advisor";
	}

	/** This loop's slot, with the request's path and its decision. */
	private LoopHandoff.Slot slot(List<? extends Advisor> chain, boolean stream) {
		if (this.paths == null || chain == null) {
			return new LoopHandoff.Slot();
		}
		RequestPaths.Path path = this.paths.loop(this, chain, stream, managerFixed());
		return new LoopHandoff.Slot(path.closeDangling, path);
	}

	/** Whether the manager is the library's; off its Spring AI version, that class is never loaded. */
	private boolean managerFixed() {
		return this.paths.fixedManager(this.toolCallingManager);
	}

	@Override
	public ChatClientResponse adviseCall(ChatClientRequest chatClientRequest, CallAdvisorChain callAdvisorChain) {
		LoopHandoff.Slot previous = LoopHandoff
			.open(slot(callAdvisorChain == null ? null : callAdvisorChain.getCallAdvisors(), false));
		try {
			ChatClientResponse response;
			try {
				response = super.adviseCall(chatClientRequest, callAdvisorChain);
			}
			catch (Throwable e) {
				try {
					handOff(chatClientRequest, callAdvisorChain);
				}
				catch (Throwable handOffFailure) {
					// The loop's own failure is what the caller must see.
					e.addSuppressed(handOffFailure);
				}
				throw e;
			}
			handOff(chatClientRequest, callAdvisorChain);
			return response;
		}
		finally {
			LoopHandoff.close(previous);
		}
	}

	private void handOff(ChatClientRequest request, CallAdvisorChain chain) {
		ToolResponseMessage closing = LoopHandoff.take();
		if (closing == null || chain == null) {
			return;
		}
		handOff(closing, chain.getCallAdvisors(), request, chain);
	}

	@Override
	public Flux<ChatClientResponse> adviseStream(ChatClientRequest chatClientRequest,
			StreamAdvisorChain streamAdvisorChain) {
		return Flux.defer(() -> {
			LoopHandoff.Slot slot = slot(
					streamAdvisorChain == null ? null : streamAdvisorChain.getStreamAdvisors(), true);
			Runnable handOff = () -> {
				ToolResponseMessage closing = slot.closing;
				slot.closing = null;
				if (closing != null && streamAdvisorChain != null) {
					handOff(closing, streamAdvisorChain.getStreamAdvisors(), chatClientRequest, streamAdvisorChain);
				}
			};
			return super.adviseStream(chatClientRequest, streamAdvisorChain)
				.concatWith(Mono.<ChatClientResponse>fromRunnable(handOff))
				.onErrorResume(e -> {
					try {
						handOff.run();
					}
					catch (Throwable handOffFailure) {
						// The loop's own failure is what the caller must see.
						e.addSuppressed(handOffFailure);
					}
					return Flux.error(e);
				})
				.contextWrite(ctx -> ctx.put(LoopHandoff.CONTEXT_KEY, slot));
		});
	}

	/**
	 * Hands {@code closing} to every memory advisor after this one in
	 * {@code advisors}, through its own {@code before}.
	 */
	private void handOff(ToolResponseMessage closing, List<? extends Advisor> advisors, ChatClientRequest request,
			AdvisorChain chain) {
		boolean inside = false;
		for (Advisor a : advisors) {
			if (a == this) {
				inside = true;
			}
			else if (inside && a instanceof BaseChatMemoryAdvisor memory) {
				memory.before(ChatClientRequest.builder()
					.prompt(new Prompt(List.of(closing)))
					.context(request.context())
					.build(), chain);
			}
		}
	}

	public static Builder builder() {
		return new Builder();
	}

	/** The builder, a {@code ToolCallingAdvisor.Builder} that ChatClient copies and builds. */
	public static class Builder extends ToolCallingAdvisor.Builder<Builder> {

		private RequestPaths paths;

		protected Builder() {
		}

		/** The paths each advisor built reports its loops to. */
		Builder requestPaths(RequestPaths paths) {
			this.paths = paths;
			return this;
		}

		@Override
		protected ToolCallingAdvisor.Builder<?> newCopy() {
			return new Builder().requestPaths(this.paths);
		}

		@Override
		public FixingToolCallingAdvisor build() {
			FixingToolCallingAdvisor advisor = new FixingToolCallingAdvisor(getToolCallingManager(),
					getToolExecutionEligibilityChecker(), getAdvisorOrder(), isConversationHistoryEnabled());
			advisor.paths = this.paths;
			return advisor;
		}

	}

}
