/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.text;

import java.math.BigDecimal;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A JSON writer whose overloads are chosen by boxing, widening, null and varargs. */
public class JsonWriter {
    private final StringBuilder out = new StringBuilder();
    private boolean needComma;
    private int depth;

    public JsonWriter beginObject() {
        comma();
        out.append('{');
        needComma = false;
        depth++;
        return this;
    }

    public JsonWriter endObject() {
        out.append('}');
        needComma = true;
        depth--;
        return this;
    }

    public JsonWriter beginArray() {
        comma();
        out.append('[');
        needComma = false;
        depth++;
        return this;
    }

    public JsonWriter endArray() {
        out.append(']');
        needComma = true;
        depth--;
        return this;
    }

    public JsonWriter name(String name) {
        comma();
        string(name);
        out.append(':');
        needComma = false;
        return this;
    }

    public JsonWriter value(String s) {
        comma();
        if (s == null) {
            out.append("null");
        } else {
            string(s);
        }
        needComma = true;
        return this;
    }

    public JsonWriter value(long n) {
        comma();
        out.append(n);
        needComma = true;
        return this;
    }

    public JsonWriter value(double d) {
        comma();
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            throw new IllegalArgumentException("not a JSON number: " + d);
        }
        out.append(d);
        needComma = true;
        return this;
    }

    public JsonWriter value(boolean b) {
        comma();
        out.append(b ? "true" : "false");
        needComma = true;
        return this;
    }

    public JsonWriter value(Number n) {
        if (n == null) {
            return nullValue();
        }
        if (n instanceof BigDecimal bd) {
            comma();
            out.append(bd.toPlainString());
            needComma = true;
            return this;
        }
        return value(n.doubleValue());
    }

    public JsonWriter value(Object o) {
        if (o == null) {
            return nullValue();
        } else if (o instanceof String s) {
            return value(s);
        } else if (o instanceof Boolean b) {
            return value(b.booleanValue());
        } else if (o instanceof Integer || o instanceof Long) {
            return value(((Number) o).longValue());
        } else if (o instanceof Number n) {
            return value(n);
        } else if (o instanceof Map<?, ?> m) {
            return map(m);
        } else if (o instanceof Collection<?> c) {
            return array(c);
        } else if (o instanceof Optional<?> opt) {
            return opt.isPresent() ? value(opt.get()) : nullValue();
        }
        return value(o.toString());
    }

    public JsonWriter nullValue() {
        comma();
        out.append("null");
        needComma = true;
        return this;
    }

    public JsonWriter values(Object... values) {
        beginArray();
        for (Object v : values) {
            value(v);
        }
        return endArray();
    }

    public JsonWriter array(Collection<?> items) {
        beginArray();
        Iterator<?> it = items.iterator();
        while (it.hasNext()) {
            value(it.next());
        }
        return endArray();
    }

    public JsonWriter map(Map<?, ?> map) {
        beginObject();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            name(String.valueOf(e.getKey())).value(e.getValue());
        }
        return endObject();
    }

    public JsonWriter field(String name, String value) {
        return name(name).value(value);
    }

    public JsonWriter field(String name, int value) {
        return name(name).value(value);
    }

    public JsonWriter field(String name, Object value) {
        return name(name).value(value);
    }

    public JsonWriter field(String name, List<String> values) {
        name(name).beginArray();
        values.forEach(this::value);
        return endArray();
    }

    private void comma() {
        if (needComma) {
            out.append(',');
        }
    }

    private void string(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    out.append("\\\"");
                    break;
                case '\\':
                    out.append("\\\\");
                    break;
                case '\n':
                    out.append("\\n");
                    break;
                default:
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }

    public int depth() {
        return depth;
    }

    @Override
    public String toString() {
        return out.toString();
    }

    public static String write(Map<String, ?> object) {
        return new JsonWriter().map(object).toString();
    }
}
