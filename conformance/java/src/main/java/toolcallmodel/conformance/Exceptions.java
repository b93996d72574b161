package toolcallmodel.conformance;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.lang.reflect.Constructor;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.execution.ToolExecutionException;

/**
 * Real Java exceptions for a vector: built-in classes by reflection, and the
 * classes a vector declares ({@code "extends"}) compiled at run time into a
 * class loader of their own, so that {@code getClass()}, {@code getSimpleName()},
 * {@code instanceof} and {@code isAssignableFrom} in Spring's code see genuine
 * classes.
 */
final class Exceptions {

	private static final String TEE = ToolExecutionException.class.getName();

	/** Declared class name to its superclass name, in declaration order. */
	private final Map<String, String> declared = new LinkedHashMap<>();

	private ClassLoader loader = Exceptions.class.getClassLoader();

	/** Collects every {@code extends} of a throws object, its causes included. */
	void declare(Map<String, Object> spec, String where) {
		String cls = Json.str(spec.get("class"), where + "/class");
		String sup = Json.str(spec.get("extends"), where + "/extends");
		if (cls != null && sup != null) {
			String prev = this.declared.putIfAbsent(cls, sup);
			if (prev != null && !prev.equals(sup)) {
				throw new Json.Fault(where + ": class '" + cls + "' declared with two superclasses");
			}
		}
		if (spec.get("cause") != null) {
			declare(Json.obj(spec.get("cause"), where + "/cause"), where + "/cause");
		}
	}

	/** Class loaders of compiled declarations, by declaration: javac runs once per distinct set. */
	private static final Map<String, ClassLoader> COMPILED = new HashMap<>();

	/** Compiles the declared classes that the JDK and Spring do not already have. */
	void compile() {
		String key = new TreeMap<>(this.declared).toString();
		ClassLoader cached = COMPILED.get(key);
		if (cached != null) {
			this.loader = cached;
			return;
		}
		compileNow();
		COMPILED.put(key, this.loader);
	}

	private void compileNow() {
		Map<String, String> toCompile = new LinkedHashMap<>();
		for (var e : this.declared.entrySet()) {
			if (existing(e.getKey()) == null) {
				toCompile.put(e.getKey(), e.getValue());
			}
		}
		if (toCompile.isEmpty()) {
			return;
		}
		// Outer classes of nested names ("a.B$C") are generated as holders.
		Map<String, List<String>> members = new TreeMap<>();
		Map<String, String> topLevel = new TreeMap<>();
		for (String name : toCompile.keySet()) {
			String top = name.contains("$") ? name.substring(0, name.indexOf('$')) : name;
			topLevel.putIfAbsent(top, null);
			members.computeIfAbsent(top, k -> new ArrayList<>()).add(name);
		}
		List<JavaFileObject> sources = new ArrayList<>();
		for (String top : topLevel.keySet()) {
			sources.add(source(top, toCompile));
		}
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		if (compiler == null) {
			throw new Json.OutOfScope("declared exception classes need a JDK compiler");
		}
		StandardJavaFileManager std = compiler.getStandardFileManager(null, null, null);
		Map<String, ByteArrayOutputStream> out = new HashMap<>();
		JavaFileManager fm = new ForwardingJavaFileManager<>(std) {
			@Override
			public JavaFileObject getJavaFileForOutput(Location location, String className, JavaFileObject.Kind kind,
					FileObject sibling) {
				return new SimpleJavaFileObject(URI.create("mem:///" + className.replace('.', '/') + ".class"), kind) {
					@Override
					public OutputStream openOutputStream() {
						ByteArrayOutputStream b = new ByteArrayOutputStream();
						out.put(className, b);
						return b;
					}
				};
			}
		};
		var diagnostics = new javax.tools.DiagnosticCollector<JavaFileObject>();
		List<String> options = List.of("-classpath", System.getProperty("java.class.path"), "-proc:none", "-nowarn");
		boolean ok = compiler.getTask(null, fm, diagnostics, options, null, sources).call();
		if (!ok) {
			StringBuilder msg = new StringBuilder("declared exception classes do not compile in Java:");
			for (var d : diagnostics.getDiagnostics()) {
				msg.append(' ').append(d.getMessage(null));
				break;
			}
			throw new Json.OutOfScope(msg.toString());
		}
		Map<String, byte[]> bytes = new HashMap<>();
		out.forEach((k, v) -> bytes.put(k, v.toByteArray()));
		this.loader = new ClassLoader(Exceptions.class.getClassLoader()) {
			@Override
			protected Class<?> findClass(String name) throws ClassNotFoundException {
				byte[] b = bytes.get(name);
				if (b == null) {
					throw new ClassNotFoundException(name);
				}
				return defineClass(name, b, 0, b.length);
			}
		};
	}

	private static Class<?> existing(String name) {
		try {
			return Class.forName(name, false, Exceptions.class.getClassLoader());
		}
		catch (ClassNotFoundException | LinkageError e) {
			return null;
		}
	}

	/** The root built-in class a declared class descends from. */
	private String rootOf(String name, Map<String, String> toCompile) {
		String n = name;
		int guard = 0;
		while (toCompile.containsKey(n)) {
			n = toCompile.get(n);
			if (++guard > 10_000) {
				throw new Json.Fault("class hierarchy of '" + name + "' has a cycle");
			}
		}
		return n;
	}

	private JavaFileObject source(String top, Map<String, String> toCompile) {
		int dot = top.lastIndexOf('.');
		String pkg = dot < 0 ? null : top.substring(0, dot);
		StringBuilder src = new StringBuilder();
		if (pkg != null) {
			src.append("package ").append(pkg).append(";\n");
		}
		emit(src, top, toCompile, true);
		String uri = "string:///" + top.replace('.', '/') + ".java";
		String text = src.toString();
		return new SimpleJavaFileObject(URI.create(uri), JavaFileObject.Kind.SOURCE) {
			@Override
			public CharSequence getCharContent(boolean ignoreEncodingErrors) {
				return text;
			}
		};
	}

	private void emit(StringBuilder src, String binary, Map<String, String> toCompile, boolean top) {
		String simple = binary.substring(Math.max(binary.lastIndexOf('.'), binary.lastIndexOf('$')) + 1);
		String sup = toCompile.get(binary);
		src.append("public ").append(top ? "" : "static ").append("class ").append(simple);
		if (sup != null) {
			src.append(" extends ").append(sup.replace('$', '.'));
		}
		src.append(" {\n");
		if (sup != null) {
			String root = rootOf(binary, toCompile);
			Class<?> rootClass = existing(root);
			if (rootClass == null) {
				throw new Json.Fault("class '" + binary + "' extends unknown class '" + root + "'");
			}
			if (ToolExecutionException.class.isAssignableFrom(rootClass)) {
				src.append("public ")
					.append(simple)
					.append("(org.springframework.ai.tool.definition.ToolDefinition d, Throwable c) { super(d, c); }\n");
			}
			else if (java.io.UncheckedIOException.class.isAssignableFrom(rootClass)) {
				src.append("public ")
					.append(simple)
					.append("(String m) { super(m, new java.io.IOException(m)); }\n");
			}
			else {
				src.append("public ").append(simple).append("(String m) { super(m); }\n");
			}
		}
		// Direct members: declared classes one '$' deeper, and holders for
		// deeper ones whose enclosing class is not declared itself.
		String prefix = binary + "$";
		java.util.Set<String> members = new java.util.TreeSet<>();
		for (String other : toCompile.keySet()) {
			if (other.startsWith(prefix)) {
				String rest = other.substring(prefix.length());
				int cut = rest.indexOf('$');
				members.add(cut < 0 ? other : prefix + rest.substring(0, cut));
			}
		}
		for (String member : members) {
			emit(src, member, toCompile, false);
		}
		src.append("}\n");
	}

	Class<?> load(String name) {
		try {
			return Class.forName(name, true, this.loader);
		}
		catch (ClassNotFoundException e) {
			throw new Json.Fault("unknown exception class '" + name + "' (declare it with \"extends\")");
		}
	}

	/**
	 * Builds the exception a {@code throws} object describes. A
	 * ToolExecutionException (or subclass) is built from its cause, as Java
	 * requires; with no cause Java's own constructor fails with a
	 * NullPointerException, which is then what the tool throws.
	 */
	Throwable build(Map<String, Object> spec, ToolDefinition def, String where) {
		String cls = Json.str(spec.get("class"), where + "/class");
		if (cls == null) {
			throw new Json.Fault(where + "/class: missing");
		}
		String message = Json.str(spec.get("message"), where + "/message");
		Class<?> c = load(cls);
		if (!Throwable.class.isAssignableFrom(c)) {
			throw new Json.Fault(where + ": '" + cls + "' is not a Throwable");
		}
		try {
			if (ToolExecutionException.class.isAssignableFrom(c)) {
				Throwable cause = spec.get("cause") == null ? null
						: build(Json.obj(spec.get("cause"), where + "/cause"), def, where + "/cause");
				Constructor<?> k = c.getDeclaredConstructor(ToolDefinition.class, Throwable.class);
				k.setAccessible(true);
				try {
					return (Throwable) k.newInstance(def, cause);
				}
				catch (java.lang.reflect.InvocationTargetException e) {
					return e.getCause();
				}
			}
			if (c == java.io.UncheckedIOException.class) {
				return new java.io.UncheckedIOException(message, new java.io.IOException(message));
			}
			Constructor<?> k = c.getDeclaredConstructor(String.class);
			k.setAccessible(true);
			Throwable t = (Throwable) k.newInstance(message);
			if (spec.get("cause") != null) {
				t.initCause(build(Json.obj(spec.get("cause"), where + "/cause"), def, where + "/cause"));
			}
			return t;
		}
		catch (NoSuchMethodException e) {
			throw new Json.OutOfScope("no (String) constructor for " + cls);
		}
		catch (ReflectiveOperationException | RuntimeException e) {
			if (e instanceof Json.Fault || e instanceof Json.OutOfScope) {
				throw (RuntimeException) e;
			}
			throw new Json.OutOfScope("cannot instantiate " + cls + ": " + e);
		}
	}

	static boolean isToolExecutionException(String className) {
		return TEE.equals(className);
	}

	/** Throws any throwable, checked or not, as Java code can through generics. */
	@SuppressWarnings("unchecked")
	static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
		throw (T) t;
	}

}
