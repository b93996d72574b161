package io.github.toolcallmodel.fixes;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.function.Predicate;

/**
 * A set of the fix table's fixes ({@link FixTable}), immutable, iterated in
 * the table's order: which fixes are on, or which fixes a column selects. It
 * replaces a boolean per fix in every signature: a component reads the fixes
 * it knows from the set, and a new fix is a row of the table, not a new
 * parameter.
 */
public final class FixSet implements Iterable<Fix> {

	private static final FixSet NONE = new FixSet(0L);

	/** Bit {@code i}: the fix of ordinal {@code i} ({@link FixTable} holds at most 64). */
	private final long bits;

	private FixSet(long bits) {
		this.bits = bits;
	}

	/** No fix: upstream. */
	public static FixSet none() {
		return NONE;
	}

	/** Every fix of the table. */
	public static FixSet every() {
		return where(f -> true);
	}

	/** The fixes {@code all} turns on (column {@code in_all}). */
	public static FixSet all() {
		return where(Fix::inAll);
	}

	/** The fixes for which the library changes {@code bean} (column {@code beans}). */
	public static FixSet changing(String bean) {
		return where(f -> f.changes(bean));
	}

	/** The fixes of the table that {@code test} selects. */
	public static FixSet where(Predicate<Fix> test) {
		long bits = 0L;
		for (Fix f : FixTable.fixes()) {
			if (test.test(f)) {
				bits |= 1L << f.ordinal();
			}
		}
		return new FixSet(bits);
	}

	/**
	 * The fixes named, by the names {@code toolcall-model check} prints.
	 * @throws IllegalArgumentException for a name the table does not have
	 */
	public static FixSet of(String... names) {
		return of(List.of(names));
	}

	/**
	 * The fixes named, by the names {@code toolcall-model check} prints.
	 * @throws IllegalArgumentException for a name the table does not have
	 */
	public static FixSet of(Collection<String> names) {
		long bits = 0L;
		for (String n : names) {
			bits |= 1L << FixTable.fix(n).ordinal();
		}
		return new FixSet(bits);
	}

	/** Whether {@code fix} is in the set. */
	public boolean has(Fix fix) {
		return (this.bits & (1L << fix.ordinal())) != 0;
	}

	/**
	 * Whether the fix named {@code name} is in the set.
	 * @throws IllegalArgumentException for a name the table does not have
	 */
	public boolean has(String name) {
		return has(FixTable.fix(name));
	}

	/** Whether a fix of the set changes the library's {@code bean} (column {@code beans}). */
	public boolean changes(String bean) {
		return !and(changing(bean)).isEmpty();
	}

	/** This set and {@code fix}. */
	public FixSet with(Fix fix) {
		return new FixSet(this.bits | (1L << fix.ordinal()));
	}

	/** This set without {@code fix}. */
	public FixSet without(Fix fix) {
		return new FixSet(this.bits & ~(1L << fix.ordinal()));
	}

	/** The fixes of both sets. */
	public FixSet or(FixSet other) {
		return new FixSet(this.bits | other.bits);
	}

	/** The fixes in this set and in {@code other}. */
	public FixSet and(FixSet other) {
		return new FixSet(this.bits & other.bits);
	}

	/** The fixes in this set and not in {@code other}. */
	public FixSet minus(FixSet other) {
		return new FixSet(this.bits & ~other.bits);
	}

	/** The fixes of this set that {@code test} selects. */
	public FixSet filter(Predicate<Fix> test) {
		return and(where(test));
	}

	public boolean isEmpty() {
		return this.bits == 0L;
	}

	public int size() {
		return Long.bitCount(this.bits);
	}

	/** The fixes, in the table's order. */
	public List<Fix> fixes() {
		List<Fix> out = new ArrayList<>(size());
		for (Fix f : FixTable.fixes()) {
			if (has(f)) {
				out.add(f);
			}
		}
		return List.copyOf(out);
	}

	/** The fixes' names, in the table's order. */
	public List<String> names() {
		return fixes().stream().map(Fix::name).toList();
	}

	@Override
	public Iterator<Fix> iterator() {
		return fixes().iterator();
	}

	@Override
	public boolean equals(Object o) {
		return o instanceof FixSet s && s.bits == this.bits;
	}

	@Override
	public int hashCode() {
		return Long.hashCode(this.bits);
	}

	/** The names joined with {@code ,}, as {@code check --fixes} reads them ({@code upstream} for none). */
	@Override
	public String toString() {
		return isEmpty() ? "upstream" : String.join(",", names());
	}

}
