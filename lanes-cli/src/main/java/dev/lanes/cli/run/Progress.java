package dev.lanes.cli.run;

import java.io.Console;
import java.io.PrintWriter;

/**
 * What the user sees while a run goes: phase lines unless {@code --quiet}, and on a terminal one live progress line,
 * rewritten in place with {@code \r}. Nothing is drawn when the output is not a terminal.
 */
public final class Progress {
    private final PrintWriter out;
    private final boolean quiet;
    private final boolean live;
    private int drawn;

    Progress(PrintWriter out, boolean quiet, boolean live) {
        this.out = out;
        this.quiet = quiet;
        this.live = live && !quiet;
    }

    /** Live only when standard output is a terminal. */
    public static Progress of(PrintWriter out, boolean quiet) {
        return new Progress(out, quiet, isTerminal());
    }

    /**
     * Up to JDK 21 {@code System.console()} is null unless stdin and stdout are a terminal; from JDK 22 it is never
     * null and {@code Console.isTerminal()} (called reflectively, as this is built for 17) tells.
     */
    @SuppressWarnings("SystemConsoleNull") // handled: isTerminal() is consulted where it exists
    static boolean isTerminal() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException | ClassCastException e) {
            return true; // before JDK 22: a console exists only on a terminal
        }
    }

    /** Rewrites the live line; a no-op unless live. */
    synchronized void update(String line) {
        if (!live) {
            return;
        }
        String padded = line.length() < drawn ? line + " ".repeat(drawn - line.length()) : line;
        out.print('\r');
        out.print(padded);
        out.flush();
        drawn = line.length();
    }

    /** A line of its own (after the live line, which it ends); a no-op when quiet. */
    public synchronized void phase(String line) {
        if (quiet) {
            return;
        }
        end();
        out.println(line);
        out.flush();
    }

    /** Ends the live line, so what follows starts on a fresh line. */
    synchronized void end() {
        if (drawn > 0) {
            out.println();
            out.flush();
            drawn = 0;
        }
    }
}
