package io.github.toolcallmodel.fixes;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * What the library installed in this application, fix by fix, and why: a
 * switch set to {@code true} or {@code false} decides; an unset switch is
 * decided from the application's beans:
 * <ul>
 * <li>{@code strict-json-or-wrap}: on for each {@code GoogleGenAiChatModel}
 * bean (Gemini's conversion fails on a plain-text tool response);</li>
 * <li>{@code end-turn-after-breach}: on when the {@code ToolCallingManager}'s
 * {@code on-limit-exceeded} is {@code RETURN_ERROR_RESPONSE} (the runaway
 * turn);</li>
 * <li>{@code close-dangling-calls}, {@code store-answered-generation},
 * {@code keep-current-turn}: on when a memory advisor bean is ordered inside
 * the tool loop (after {@code ToolCallingAdvisor}), or from a request whose
 * advisor chain has one there ({@link RequestPaths}; {@code close-dangling-calls}
 * per request);</li>
 * <li>every other switch: off (the upstream proposals, and the fixes the
 * ones above make unnecessary).</li>
 * </ul>
 * The memory fixes are decided once every singleton exists (the advisor beans
 * are read then) and at each request; until then they are off. On a Spring AI
 * other than 2.0.1 the fixes that read its internals are off whatever their
 * switch ({@link SpringAiVersion#INTERNAL_FIXES}). The names are the ones
 * {@code toolcall-model check} prints.
 */
public final class InstalledFixes {

	/** Every switch, by the name {@code check} prints, in its order; {@code json-error-processor} last. */
	public static final List<String> NAMES = java.util.stream.Stream
		.concat(FixTable.names().stream(), java.util.stream.Stream.of("json-error-processor"))
		.toList();

	/**
	 * The fixes an unset switch may turn on, each decided from the application
	 * as the list above says; every other unset switch is off: the fix table's
	 * rows whose {@code unset} is {@code decided}, which {@code check} reads as
	 * the library's rule too.
	 */
	public static final FixSet DECIDED_UNSET = FixSet.where(f -> f.unset() == Fix.Unset.DECIDED);

	/** One decision: on or off, and the reason, as logged. */
	public record Decision(boolean on, String why) {
	}

	private final ToolCallFixesProperties properties;

	private final Map<String, Decision> decisions = new LinkedHashMap<>();

	/** The Spring AI version the application runs ({@code null}: its jars do not say). */
	private final String springAiVersion;

	/** Whether the fixes that read 2.0.1's internals may run ({@link SpringAiVersion#INTERNAL_FIXES}). */
	private final boolean internals;

	InstalledFixes(ToolCallFixesProperties properties) {
		this(properties, SpringAiVersion.SUPPORTED, true);
	}

	InstalledFixes(ToolCallFixesProperties properties, String springAiVersion, boolean internals) {
		this.properties = properties;
		this.springAiVersion = springAiVersion;
		this.internals = internals;
	}

	/** The Spring AI version the application runs, as its jars say ({@code null}: they do not). */
	public String springAiVersion() {
		return this.springAiVersion;
	}

	/** Whether the fixes that read Spring AI 2.0.1's internals may run on this application's version. */
	public boolean internals() {
		return this.internals;
	}

	/**
	 * Whether {@code manager} is the library's, on the version its fixes read
	 * (off it, the class is never loaded: the check stops first).
	 */
	boolean fixedManager(Object manager) {
		return this.internals && manager instanceof FixingToolCallingManager;
	}

	/** The warning logged at startup about the version ({@code null}: none). */
	public String versionWarning() {
		return this.internals ? null : SpringAiVersion.offWarning(this.springAiVersion);
	}

	/** Off, whatever its switch, when {@code fix} reads internals this version may not have. */
	private Decision versionOff(String fix) {
		if (this.internals || !(FixTable.has(fix) && SpringAiVersion.INTERNAL_FIXES.has(fix))) {
			return null;
		}
		return new Decision(false, "off: reads Spring AI " + SpringAiVersion.SUPPORTED
				+ "'s internals, and this application runs Spring AI "
				+ (this.springAiVersion == null ? "of an unknown version" : this.springAiVersion));
	}

	ToolCallFixesProperties properties() {
		return this.properties;
	}

	/** The switch as set: {@code null} when unset. */
	Boolean set(String fix) {
		return this.properties.get(fix);
	}

	/** Whether {@code fix} may be on: set true, or unset. */
	boolean mayBeOn(String fix) {
		return versionOff(fix) == null && !Boolean.FALSE.equals(set(fix));
	}

	/**
	 * Records {@code fix} as decided; a switch that is set wins over
	 * {@code auto}, with its own reason.
	 */
	synchronized Decision decide(String fix, boolean auto, String why) {
		// Checked where assertions run (the tests): a fix an unset switch turns
		// on must be listed, or the manager would not be wrapped for it.
		assert set(fix) != null || !auto || !FixTable.has(fix) || DECIDED_UNSET.has(fix) : fix
				+ " is decided on unset, and its unset in fixes.tsv is not decided";
		Decision d = decision(fix, auto, why);
		this.decisions.put(fix, d);
		return d;
	}

	/** What {@link #decide} would record, without recording it. */
	Decision decision(String fix, boolean auto, String why) {
		Boolean s = set(fix);
		Decision off = versionOff(fix);
		return off != null ? off : s == null ? new Decision(auto, why)
				: new Decision(s, ToolCallFixesProperties.PREFIX + "." + fix + "=" + s);
	}

	/** Whether {@code fix} has been decided. */
	synchronized boolean isDecided(String fix) {
		return this.decisions.containsKey(fix);
	}

	/** Whether {@code fix} is on now. */
	public synchronized boolean on(String fix) {
		Decision d = this.decisions.get(fix);
		return d != null ? d.on() : versionOff(fix) == null && Boolean.TRUE.equals(set(fix));
	}

	/** The switch a component reads at each use (for the fixes decided after it is built). */
	BooleanSupplier switchOf(String fix) {
		return () -> on(fix);
	}

	/** Every switch with its decision, in {@link #NAMES}' order (undecided: as set, else off). */
	public synchronized Map<String, Decision> decisions() {
		Map<String, Decision> out = new LinkedHashMap<>();
		for (String n : NAMES) {
			Decision d = this.decisions.get(n);
			if (d == null) {
				d = versionOff(n);
			}
			if (d == null) {
				Boolean s = set(n);
				d = s != null ? new Decision(s, ToolCallFixesProperties.PREFIX + "." + n + "=" + s)
						: new Decision(false, "unset: off");
			}
			out.put(n, d);
		}
		return out;
	}

	/** The fixes on, joined with {@code ,} as {@code check --fixes} reads them ({@code upstream} for none). */
	public String fixesArgument() {
		List<String> on = decisions().entrySet()
			.stream()
			.filter(e -> e.getValue().on() && !e.getKey().equals("json-error-processor"))
			.map(Map.Entry::getKey)
			.toList();
		return on.isEmpty() ? "upstream" : String.join(",", on);
	}

}
