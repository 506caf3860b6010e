/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.text;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/** Splits expressions into tokens; an Iterator with an enum whose constants have bodies. */
public class Tokenizer implements Iterator<Tokenizer.Token>, Iterable<Tokenizer.Token> {

    public enum Kind {
        NUMBER {
            @Override
            boolean starts(char c) {
                return Character.isDigit(c);
            }
        },
        WORD {
            @Override
            boolean starts(char c) {
                return Character.isLetter(c) || c == '_';
            }
        },
        SYMBOL {
            @Override
            boolean starts(char c) {
                return "+-*/()=<>,".indexOf(c) >= 0;
            }

            @Override
            boolean continues(char c) {
                return false;
            }
        };

        abstract boolean starts(char c);

        boolean continues(char c) {
            return starts(c) || Character.isDigit(c);
        }

        static Kind of(char c) {
            for (Kind k : values()) {
                if (k.starts(c)) {
                    return k;
                }
            }
            throw new IllegalArgumentException("unexpected '" + c + "'");
        }
    }

    /** A token and where it starts. */
    public static final class Token {
        private final Kind kind;
        private final String text;
        private final int offset;

        public Token(Kind kind, String text, int offset) {
            this.kind = kind;
            this.text = text;
            this.offset = offset;
        }

        public Kind kind() {
            return kind;
        }

        public String text() {
            return text;
        }

        public int offset() {
            return offset;
        }

        public boolean is(Kind k, String t) {
            return kind == k && text.equals(t);
        }

        public int asInt() {
            if (kind != Kind.NUMBER) {
                throw new IllegalStateException(text + " is a " + kind.name().toLowerCase());
            }
            return Integer.parseInt(text);
        }

        @Override
        public String toString() {
            return kind + "(" + text + ")";
        }
    }

    private final String input;
    private int pos;

    public Tokenizer(String input) {
        this.input = input;
    }

    private void skipSpace() {
        while (pos < input.length() && Character.isWhitespace(input.charAt(pos))) {
            pos++;
        }
    }

    @Override
    public boolean hasNext() {
        skipSpace();
        return pos < input.length();
    }

    @Override
    public Token next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        int start = pos;
        Kind kind = Kind.of(input.charAt(pos));
        pos++;
        while (pos < input.length() && kind.continues(input.charAt(pos))) {
            pos++;
        }
        return new Token(kind, input.substring(start, pos), start);
    }

    @Override
    public Iterator<Token> iterator() {
        return this;
    }

    public List<Token> all() {
        List<Token> out = new ArrayList<>();
        forEachRemaining(out::add);
        return out;
    }

    public static int evaluate(String expression) {
        Tokenizer t = new Tokenizer(expression);
        int total = 0;
        int sign = 1;
        for (Token token : t) {
            switch (token.kind()) {
                case NUMBER -> total += sign * token.asInt();
                case SYMBOL -> sign = token.text().equals("-") ? -1 : 1;
                case WORD -> throw new IllegalArgumentException("unknown name " + token.text());
                default -> throw new IllegalStateException();
            }
        }
        return total;
    }

    public static String describe(Token token) {
        String what = switch (token.kind()) {
            case NUMBER -> "number " + token.asInt();
            case WORD -> "word " + token.text().toUpperCase();
            case SYMBOL -> "symbol " + token.text();
        };
        return what + " at " + token.offset();
    }
}
