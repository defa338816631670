package io.github.depothq.depot;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * A plain-Java test runner (no JUnit to download): runs every {@link Test} method of the classes
 * named, each on a new instance, prints {@code ok}/{@code FAIL} per test and ends with the line
 * {@code N passed, N failed}; exits 1 when any failed.
 *
 * <pre>java -cp … io.github.depothq.depot.TestRunner JsonTest LocalServerTest [--only NAME]</pre>
 *
 * A class with a static {@code setUp()} / {@code tearDown()} has them run around its tests.
 */
public final class TestRunner {
  public static void main(String[] args) throws Exception {
    List<String> classes = new ArrayList<>();
    String only = null;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--only")) only = args[++i];
      else classes.add(args[i]);
    }
    int passed = 0;
    int failed = 0;
    List<String> failures = new ArrayList<>();
    for (String name : classes) {
      Class<?> type = Class.forName(TestRunner.class.getPackageName() + "." + name);
      Method[] methods = type.getDeclaredMethods();
      Arrays.sort(methods, Comparator.comparing(Method::getName));
      List<Method> tests = new ArrayList<>();
      for (Method m : methods) {
        if (m.isAnnotationPresent(Test.class) && (only == null || m.getName().contains(only))) tests.add(m);
      }
      if (tests.isEmpty()) continue;
      System.out.println("# " + name + " (" + tests.size() + " tests)");
      Method setUp = find(type, "setUp");
      Method tearDown = find(type, "tearDown");
      if (setUp != null) setUp.invoke(null);
      try {
        for (Method test : tests) {
          long started = System.nanoTime();
          try {
            test.setAccessible(true);
            test.invoke(type.getDeclaredConstructor().newInstance());
            passed++;
            System.out.printf("ok   %s.%s (%d ms)%n", name, test.getName(), (System.nanoTime() - started) / 1_000_000);
          } catch (InvocationTargetException e) {
            failed++;
            Throwable cause = e.getCause();
            failures.add(name + "." + test.getName() + ": " + cause);
            System.out.printf("FAIL %s.%s: %s%n", name, test.getName(), cause);
            cause.printStackTrace(System.out);
          }
        }
      } finally {
        if (tearDown != null) tearDown.invoke(null);
      }
    }
    if (!failures.isEmpty()) {
      System.out.println("# failures:");
      for (String f : failures) System.out.println("  " + f);
    }
    System.out.println(passed + " passed, " + failed + " failed");
    System.exit(failed == 0 && passed > 0 ? 0 : 1);
  }

  private static Method find(Class<?> type, String name) {
    try {
      Method m = type.getDeclaredMethod(name);
      m.setAccessible(true);
      return m;
    } catch (NoSuchMethodException e) {
      return null;
    }
  }
}
