package io.github.toolcallmodel.fixes.boot3;

import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.aop.framework.ProxyFactory;

/**
 * {@code strict-json-or-wrap} where an application sends Gemini tool responses of
 * its own: with internal tool execution off, the application runs the loop and
 * calls {@code chatModel.call(prompt)} or {@code stream(prompt)} with the
 * conversation. A proxy of the model's own class (still a
 * {@code GoogleGenAiChatModel} wherever one is injected) hands the model every
 * prompt with its tool responses rewritten ({@link GeminiToolResponses#rewrite(List)}).
 * The rounds of the model's own loop pass through
 * {@link JsonSafeToolCallingManager} instead.
 */
public final class GeminiSafeChatModel {

	/** Implemented by every wrapped model. */
	public interface Wrapped {

	}

	private GeminiSafeChatModel() {
	}

	/**
	 * {@code model}, of its own class where it can be subclassed, with every
	 * prompt rewritten before it converts it; {@code model} itself when wrapped
	 * already. A model the application builds outside the context:
	 * {@code model = GeminiSafeChatModel.wrap(model);} (and build it with a
	 * {@link JsonSafeToolCallingManager} for its own loop).
	 */
	@SuppressWarnings("unchecked")
	public static <M extends ChatModel> M wrap(M model) {
		if (model instanceof Wrapped) {
			return model;
		}
		ProxyFactory factory = new ProxyFactory(model);
		factory.setProxyTargetClass(!Modifier.isFinal(model.getClass().getModifiers()));
		factory.addInterface(Wrapped.class);
		factory.addAdvice(new Rewriting());
		return (M) factory.getProxy(model.getClass().getClassLoader());
	}

	/** Rewrites the {@code Prompt} or {@code Message...} argument of {@code call} and {@code stream}. */
	private static final class Rewriting implements MethodInterceptor {

		@Override
		public Object invoke(MethodInvocation invocation) throws Throwable {
			String name = invocation.getMethod().getName();
			if (name.equals("call") || name.equals("stream")) {
				Object[] args = invocation.getArguments();
				for (int i = 0; i < args.length; i++) {
					if (args[i] instanceof Prompt prompt) {
						List<Message> messages = prompt.getInstructions();
						List<Message> rewritten = GeminiToolResponses.rewrite(messages);
						if (rewritten != messages) {
							args[i] = prompt.mutate().messages(rewritten).build();
						}
					}
					else if (args[i] instanceof Message[] messages) {
						List<Message> list = Arrays.asList(messages);
						List<Message> rewritten = GeminiToolResponses.rewrite(list);
						if (rewritten != list) {
							args[i] = rewritten.toArray(Message[]::new);
						}
					}
				}
			}
			return invocation.proceed();
		}

	}

}
