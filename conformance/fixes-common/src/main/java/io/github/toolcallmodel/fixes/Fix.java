package io.github.toolcallmodel.fixes;

import java.util.List;

/**
 * One fix: a row of the model's fix table ({@code fixes.tsv}, read by
 * {@link FixTable}). The library, the conformance runner and the bench know a
 * fix only through its row; {@link FixSet} holds the fixes that are on.
 */
public final class Fix {

	/** What the library makes of the fix when its switch is unset (column {@code unset}). */
	public enum Unset {

		/** Off. */
		OFF,

		/** Decided from the application: its beans at start-up, or each request's path. */
		DECIDED

	}

	private final int ordinal;

	private final String name;

	private final boolean inAll;

	private final String acts;

	private final List<String> beans;

	private final String javaName;

	private final Unset unset;

	Fix(int ordinal, String name, boolean inAll, String acts, List<String> beans, String javaName, Unset unset) {
		this.ordinal = ordinal;
		this.name = name;
		this.inAll = inAll;
		this.acts = acts;
		this.beans = List.copyOf(beans);
		this.javaName = javaName;
		this.unset = unset;
	}

	/** The fix of the table named {@code name} (the name {@code toolcall-model check} prints). */
	public static Fix named(String name) {
		return FixTable.fix(name);
	}

	/** Its place in the table, from 0. */
	int ordinal() {
		return this.ordinal;
	}

	/** The name {@code toolcall-model check} prints, and the switch's under {@code toolcall.fixes}. */
	public String name() {
		return this.name;
	}

	/** Whether {@code all} turns it on (column {@code in_all}). */
	public boolean inAll() {
		return this.inAll;
	}

	/** Where it acts: {@code manager}, {@code conversion} or {@code memory} (column {@code acts}). */
	public String acts() {
		return this.acts;
	}

	/**
	 * The beans the library changes for it (column {@code beans}): {@code manager}
	 * (the ToolCallingManager), {@code chat-model}, {@code tool-advisor} (the
	 * ToolCallingAdvisor.Builder), {@code window} (the ChatMemory replaced) or
	 * {@code memory} (the ChatMemory wrapped).
	 */
	public List<String> beans() {
		return this.beans;
	}

	/** Whether the library changes {@code bean} for it. */
	public boolean changes(String bean) {
		return this.beans.contains(bean);
	}

	/** The name of its field in the library's properties (column {@code java}). */
	public String javaName() {
		return this.javaName;
	}

	/**
	 * What the library makes of it when its switch is unset (column
	 * {@code unset}, the checker's rule for an unset switch too).
	 */
	public Unset unset() {
		return this.unset;
	}

	@Override
	public String toString() {
		return this.name;
	}

}
