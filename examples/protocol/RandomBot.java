// A random bot for the Uptown arena, speaking the JSON-lines protocol uptown-bot/1.
//
// Run it with (Java 11 or later runs a single source file as it is):
//
//     arena play "exec:java examples/protocol/RandomBot.java" random
//
// or compile it once and run the class, which starts faster:
//
//     javac -d examples/protocol/classes examples/protocol/RandomBot.java
//     arena play "exec:java -cp examples/protocol/classes RandomBot" random
//
// It uses only the Java standard library (a small JSON reader is below) and does
// not need the arena. It plays a legal move chosen with SplitMix64, seeded from
// the first 16 hex digits of the game's `seed`, so the same seed always gives the
// same choices (the same as random_bot.py and random_bot.js). With the option
// captures=false it prefers moves onto empty cells.

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

public final class RandomBot {
    private static final PrintStream OUT = new PrintStream(System.out, false, StandardCharsets.UTF_8);

    /** SplitMix64: Java's long wraps as the 64-bit arithmetic it needs. */
    static final class SplitMix64 {
        private long state;

        SplitMix64(long seed) { state = seed; }

        long next() {
            state += 0x9E3779B97F4A7C15L;
            long z = state;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        SplitMix64 rng = new SplitMix64(0);
        boolean captures = true;
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            Map<?, ?> msg = (Map<?, ?>) new Json(line).value();
            Object type = msg.get("type");
            if ("hello".equals(type)) {
                send("{\"type\": \"hello\", \"protocol\": \"uptown-bot/1\", \"name\": \"random-java\", "
                     + "\"description\": \"Plays a legal move chosen at random (SplitMix64).\", "
                     + "\"options\": {\"captures\": true}}");
            } else if ("game".equals(type)) {
                Map<?, ?> options = (Map<?, ?>) msg.get("options");
                captures = options == null || !Boolean.FALSE.equals(options.get("captures"));
                rng = new SplitMix64(Long.parseUnsignedLong(((String) msg.get("seed")).substring(0, 16), 16));
                System.err.println("random-java: game as seat " + msg.get("seat"));
            } else if ("turn".equals(type)) {
                String move = choose((List<?>) msg.get("legal"), (Map<?, ?>) msg.get("view"), captures, rng);
                send("{\"type\": \"move\", \"move\": \"" + move + "\"}");
            } else if ("over".equals(type)) {
                System.err.println("random-java: game over");
            } else if ("quit".equals(type)) {
                break;
            }
        }
    }

    static String choose(List<?> legal, Map<?, ?> view, boolean captures, SplitMix64 rng) {
        List<?> moves = legal;
        if (!captures) {
            Set<Object> occupied = new HashSet<>();
            for (Object cells : ((Map<?, ?>) view.get("board")).values()) {
                occupied.addAll((List<?>) cells);
            }
            List<Object> free = new ArrayList<>();
            for (Object move : legal) {
                String text = (String) move;
                int at = text.indexOf('@');
                if (at >= 0 && !occupied.contains(text.substring(at + 1))) {
                    free.add(move);
                }
            }
            if (!free.isEmpty()) {
                moves = free;
            }
        }
        return (String) moves.get((int) Long.remainderUnsigned(rng.next(), moves.size()));
    }

    static void send(String line) {
        OUT.print(line + "\n");
        OUT.flush();
    }

    /** Just enough JSON: objects, arrays, strings, numbers, true, false and null. */
    static final class Json {
        private final String text;
        private int at;

        Json(String text) { this.text = text; }

        Object value() {
            skip();
            char c = text.charAt(at);
            if (c == '{') {
                Map<String, Object> object = new LinkedHashMap<>();
                at++;
                skip();
                if (text.charAt(at) == '}') {
                    at++;
                    return object;
                }
                while (true) {
                    skip();
                    String key = string();
                    skip();
                    expect(':');
                    object.put(key, value());
                    skip();
                    if (text.charAt(at++) == '}') {
                        return object;
                    }
                }
            }
            if (c == '[') {
                List<Object> array = new ArrayList<>();
                at++;
                skip();
                if (text.charAt(at) == ']') {
                    at++;
                    return array;
                }
                while (true) {
                    array.add(value());
                    skip();
                    if (text.charAt(at++) == ']') {
                        return array;
                    }
                }
            }
            if (c == '"') {
                return string();
            }
            if (text.startsWith("true", at)) {
                at += 4;
                return Boolean.TRUE;
            }
            if (text.startsWith("false", at)) {
                at += 5;
                return Boolean.FALSE;
            }
            if (text.startsWith("null", at)) {
                at += 4;
                return null;
            }
            int start = at;
            while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
                at++;
            }
            return Double.parseDouble(text.substring(start, at));
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (true) {
                char c = text.charAt(at++);
                if (c == '"') {
                    return out.toString();
                }
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                char e = text.charAt(at++);
                switch (e) {
                    case 'n': out.append('\n'); break;
                    case 't': out.append('\t'); break;
                    case 'r': out.append('\r'); break;
                    case 'b': out.append('\b'); break;
                    case 'f': out.append('\f'); break;
                    case 'u':
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                        at += 4;
                        break;
                    default: out.append(e);
                }
            }
        }

        private void expect(char c) {
            if (text.charAt(at++) != c) {
                throw new IllegalArgumentException("expected '" + c + "' at " + (at - 1));
            }
        }

        private void skip() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                at++;
            }
        }
    }
}
