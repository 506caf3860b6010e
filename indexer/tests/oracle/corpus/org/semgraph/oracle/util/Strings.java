/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.util;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Small string helpers, overloaded the way real utility classes are. */
public final class Strings {
    private static final Pattern WORD = Pattern.compile("[A-Za-z][a-z0-9]*");

    private Strings() {
    }

    public static String join(String separator, String... parts) {
        return String.join(separator, parts);
    }

    public static String join(String separator, List<String> parts) {
        StringJoiner joiner = new StringJoiner(separator);
        for (String part : parts) {
            joiner.add(part);
        }
        return joiner.toString();
    }

    public static String repeat(char c, int times) {
        char[] chars = new char[times];
        Arrays.fill(chars, c);
        return new String(chars);
    }

    public static String repeat(String s, int times) {
        return s.repeat(times);
    }

    public static String pad(String s, int width) {
        if (s.length() >= width) {
            return s;
        }
        return s + repeat(' ', width - s.length());
    }

    public static String pad(Object o, int width) {
        return pad(String.valueOf(o), width);
    }

    public static List<String> words(String text) {
        List<String> out = new ArrayList<>();
        Matcher m = WORD.matcher(text);
        while (m.find()) {
            out.add(m.group().toLowerCase(Locale.ROOT));
        }
        return out;
    }

    public static String snakeCase(String camel) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < camel.length(); i++) {
            char c = camel.charAt(i);
            if (Character.isUpperCase(c) && i > 0) {
                sb.append('_');
            }
            sb.append(Character.toLowerCase(c));
        }
        return sb.toString();
    }

    public static String capitalize(String s) {
        if (s.isEmpty()) {
            return s;
        }
        return s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1);
    }

    public static boolean isNumeric(CharSequence cs) {
        if (cs.length() == 0) {
            return false;
        }
        return cs.chars().allMatch(Character::isDigit);
    }

    public static String abbreviate(String s, int max) {
        Checks.positive(max, "max");
        return s.length() <= max ? s : s.substring(0, Math.max(0, max - 1)) + "…";
    }

    public static int count(String haystack, String needle) {
        int n = 0;
        int from = haystack.indexOf(needle);
        while (from >= 0) {
            n++;
            from = haystack.indexOf(needle, from + needle.length());
        }
        return n;
    }
}
