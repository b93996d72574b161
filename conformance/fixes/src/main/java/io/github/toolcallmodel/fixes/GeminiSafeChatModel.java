package io.github.toolcallmodel.fixes;

import java.util.Arrays;
import java.util.List;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;

/**
 * The Gemini fixes at the chat model itself: a proxy of the model's own class
 * (so it still is a {@code GoogleGenAiChatModel} wherever one is injected)
 * whose {@code call} and {@code stream} hand the model every prompt with its
 * tool responses rewritten by {@link GeminiSafeToolResponseAdvisor#rewrite(List)}.
 * Every request the model converts passes here, however the {@code ChatClient}
 * was built ({@code ChatClient.builder(chatModel)}, {@code ChatClient.create},
 * the auto-configured builder) and for a direct {@code chatModel.call(prompt)}.
 *
 * <p>
 * The auto-configuration wraps the {@code GoogleGenAiChatModel} bean; a model
 * the application builds itself, outside the context, is wrapped with
 * {@link #wrap(ChatModel, GeminiSafeToolResponseAdvisor)}.
 */
public final class GeminiSafeChatModel {

	/** Implemented by every wrapped model: the rewrite it applies. */
	public interface Wrapped {

		/** The rewrite this model applies to every prompt. */
		GeminiSafeToolResponseAdvisor toolcallFixesRewrite();

	}

	private GeminiSafeChatModel() {
	}

	/**
	 * {@code model}, of its own class, with every prompt rewritten by
	 * {@code rewrite} before it converts it; {@code model} itself when it is
	 * wrapped already.
	 */
	public static <M extends ChatModel> M wrap(M model, GeminiSafeToolResponseAdvisor rewrite) {
		return wrap(model, rewrite, null);
	}

	/** As above, each request reported to {@code paths} ({@code null}: none). */
	@SuppressWarnings("unchecked")
	static <M extends ChatModel> M wrap(M model, GeminiSafeToolResponseAdvisor rewrite, RequestPaths paths) {
		if (model instanceof Wrapped) {
			return model;
		}
		ProxyFactory factory = new ProxyFactory(model);
		// Of the model's own class where it can be subclassed; a final class
		// gets a proxy of its interfaces (ChatModel among them).
		factory.setProxyTargetClass(!java.lang.reflect.Modifier.isFinal(model.getClass().getModifiers()));
		factory.addInterface(Wrapped.class);
		factory.addAdvice(new Rewriting(rewrite, paths, targetClass(model)));
		return (M) factory.getProxy(model.getClass().getClassLoader());
	}

	/** {@code model} with {@code strict-json-or-wrap} alone: the one line for a model built outside the context. */
	public static <M extends ChatModel> M wrap(M model) {
		return wrap(model, new GeminiSafeToolResponseAdvisor(FixSet.of("strict-json-or-wrap")));
	}

	/** The class of the model behind {@code model}, wrapped or not. */
	static Class<?> targetClass(Object model) {
		return AopUtils.getTargetClass(model);
	}

	/** Rewrites the {@code Prompt} or {@code Message...} argument of {@code call} and {@code stream}. */
	private record Rewriting(GeminiSafeToolResponseAdvisor rewrite, RequestPaths paths,
			Class<?> modelClass) implements MethodInterceptor {

		@Override
		public Object invoke(MethodInvocation invocation) throws Throwable {
			String name = invocation.getMethod().getName();
			if (name.equals("toolcallFixesRewrite") && invocation.getArguments().length == 0) {
				return this.rewrite;
			}
			Object[] args = invocation.getArguments();
			if (name.equals("call") && args.length == 1 && args[0] instanceof Prompt prompt
					&& invocation.getThis() instanceof ChatModel target) {
				// The common case, straight to the model: no reflective call.
				if (this.paths != null) {
					reportCall(prompt);
				}
				List<Message> messages = prompt.getInstructions();
				List<Message> rewritten = this.rewrite.rewrite(messages);
				return target.call(rewritten == messages ? prompt : prompt.mutate().messages(rewritten).build());
			}
			if (name.equals("call") || name.equals("stream")) {
				for (int i = 0; i < args.length; i++) {
					if (args[i] instanceof Prompt prompt) {
						if (this.paths != null && name.equals("call")) {
							reportCall(prompt);
						}
						else if (this.paths != null) {
							return reportStream(prompt, invocation);
						}
						List<Message> messages = prompt.getInstructions();
						List<Message> rewritten = this.rewrite.rewrite(messages);
						if (rewritten != messages) {
							args[i] = prompt.mutate().messages(rewritten).build();
						}
					}
					else if (args[i] instanceof Message[] messages) {
						List<Message> list = Arrays.asList(messages);
						List<Message> rewritten = this.rewrite.rewrite(list);
						if (rewritten != list) {
							args[i] = rewritten.toArray(Message[]::new);
						}
					}
				}
			}
			return invocation.proceed();
		}

		/** On {@code call()}, the loop's slot is on this thread. */
		private void reportCall(Prompt prompt) {
			LoopHandoff.Slot slot = LoopHandoff.current();
			if (slot != null && slot.path != null) {
				slot.path.sent(this.modelClass, prompt);
			}
			else {
				this.paths.outside(this.modelClass, prompt, false, StackWalker.getInstance()
					.walk(s -> s.anyMatch(f -> f.getClassName().startsWith("org.springframework.ai.chat.client."))));
			}
		}

		/**
		 * On {@code stream()}, the loop's slot is in the Reactor context, and so is
		 * the observation of Spring's {@code ChatClient}.
		 */
		private Object reportStream(Prompt prompt, MethodInvocation invocation) throws Throwable {
			List<Message> messages = prompt.getInstructions();
			List<Message> rewritten = this.rewrite.rewrite(messages);
			Prompt sent = rewritten == messages ? prompt : prompt.mutate().messages(rewritten).build();
			for (int i = 0; i < invocation.getArguments().length; i++) {
				if (invocation.getArguments()[i] == prompt) {
					invocation.getArguments()[i] = sent;
				}
			}
			Object result = invocation.proceed();
			if (!(result instanceof reactor.core.publisher.Flux<?> flux)) {
				return result;
			}
			return reactor.core.publisher.Flux.deferContextual(ctx -> {
				LoopHandoff.Slot slot = ctx.getOrDefault(LoopHandoff.CONTEXT_KEY, null);
				if (slot != null && slot.path != null) {
					slot.path.sent(this.modelClass, prompt);
				}
				else {
					this.paths.outside(this.modelClass, prompt, true, ctx.hasKey(OBSERVATION_KEY));
				}
				return flux;
			});
		}

	}

	/** The key under which Spring's ChatClient puts its observation in a stream's Reactor context. */
	private static final String OBSERVATION_KEY = "micrometer.observation";

}
