/* The fast reader's composer in C: libyaml's events straight to nodes and the JavaScript value.
 *
 * Why: with PyYAML's CParser under the Python composer (libyaml.py), a realistic frontmatter still
 * costs ~90 us, two thirds of it in Python (an event object per event, then the composer's
 * attribute reads and checks). Here libyaml runs in-process with no event objects, and the nodes
 * are built by calling the node classes the caller passes (so they are the very dataclasses the
 * Python composer builds).
 *
 * This composer answers only for the documents where it is sure to give what the Python composer
 * gives over the same events, and otherwise returns None (the caller then runs the Python
 * composer, which knows every rule): anchors, tags and aliases; empty plain scalars (a left-out
 * value) but a block mapping's value, which is moved to ruamel's place as compose.py moves it, where
 * only blank and comment lines stand between; keys that are not strings, or
 * repeated; any libyaml error; a second document; any limit crossed; a block scalar header libyaml
 * reads differently from ruamel; a quoted scalar
 * followed by '#', or whose continuation line is not indented deeper than its block parent; a
 * flow collection in a block one whose continuation line is not indented deeper. Each of those is
 * a check of compose.py's, which keeps its own error for it.
 *
 * Offsets are libyaml's marks: code points, as the Python composer's. The checks read the UTF-8
 * text through a code point -> byte table (none for ASCII text).
 *
 * Built with the limited API (one wheel for every Python from 3.11), statically linked to libyaml
 * when the build finds it; the package works without this module (libyaml.py falls back).
 */
#define Py_LIMITED_API 0x030B0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include <yaml.h>

enum { OK = 0, FAILED = -1, UNSURE = 1 };

typedef struct {
    yaml_parser_t parser;
    yaml_event_t event;
    int has_event;
    const unsigned char *text; /* UTF-8 */
    Py_ssize_t size;           /* bytes */
    Py_ssize_t length;         /* code points */
    Py_ssize_t *offsets;       /* code point -> byte offset (length + 1 entries), NULL for ASCII */
    PyObject *scalar_cls, *map_cls, *seq_cls, *resolve_plain;
    PyObject *style_single, *style_double, *style_literal, *style_folded;
    Py_ssize_t max_depth, max_nodes, max_keys;
    Py_ssize_t depth, nodes, flow_depth;
    Py_ssize_t *columns; /* columns of the enclosing block collections (max_depth entries) */
    Py_ssize_t ncolumns;
    int empty_allowed; /* the next scalar is a block mapping's value: it may be left out */
    int was_empty;     /* the scalar just composed was left out (an empty plain scalar) */
} Composer;

static Py_ssize_t byte_at(const Composer *c, Py_ssize_t point) {
    if (point > c->length) point = c->length;
    return c->offsets ? c->offsets[point] : point;
}

static int next_event(Composer *c) {
    if (c->has_event) {
        yaml_event_delete(&c->event);
        c->has_event = 0;
    }
    if (!yaml_parser_parse(&c->parser, &c->event)) return UNSURE; /* the full parser words the error */
    c->has_event = 1;
    return OK;
}

/* compose.py's _BLOCK_HEADER at ``at`` (bytes): [|>](?:[1-9][+-]?|[+-][1-9]?)?(?: +#[^\n]*| *)(?:\n|\Z) */
static int block_header_matches(const Composer *c, Py_ssize_t at) {
    const unsigned char *t = c->text;
    Py_ssize_t n = c->size, p = at, q;
    if (p >= n || (t[p] != '|' && t[p] != '>')) return 0;
    p++;
    if (p < n && t[p] >= '1' && t[p] <= '9') {
        p++;
        if (p < n && (t[p] == '+' || t[p] == '-')) p++;
    } else if (p < n && (t[p] == '+' || t[p] == '-')) {
        p++;
        if (p < n && t[p] >= '1' && t[p] <= '9') p++;
    }
    q = p;
    while (q < n && t[q] == ' ') q++;
    if (q > p && q < n && t[q] == '#') return 1; /* a comment runs to the line's end */
    return q == n || t[q] == '\n';
}

/* compose.py's _quoted_indent_violation: a continuation line no deeper than the block parent. */
static int quoted_indent_violation(const Composer *c, Py_ssize_t start, Py_ssize_t end, Py_ssize_t parent) {
    const unsigned char *t = c->text;
    Py_ssize_t pos;
    for (pos = start; pos < end; pos++) {
        if (t[pos] != '\n') continue;
        Py_ssize_t first = pos + 1, content = first;
        while (content < end && t[content] == ' ') content++;
        if (content < end && t[content] != '\n' && content - first <= parent) return 1;
    }
    return 0;
}

/* compose.py's flow_indent_violation (indentation is spaces; blanks and tabs after it separate). */
static int flow_indent_violation(const Composer *c, Py_ssize_t start, Py_ssize_t end, Py_ssize_t parent) {
    const unsigned char *t = c->text;
    Py_ssize_t n = c->size, pos;
    for (pos = start; pos < end; pos++) {
        if (t[pos] != '\n') continue;
        Py_ssize_t first = pos + 1, indent = first, content;
        while (indent < n && t[indent] == ' ') indent++;
        content = indent;
        while (content < n && (t[content] == ' ' || t[content] == '\t')) content++;
        if (content >= end) return 0;
        if (content < n && t[content] != '\n' && t[content] != '#' && indent - first <= parent) return 1;
    }
    return 0;
}

/* compose.py's _final_line_break: yaml keeps a block scalar's last line break where the text ends
 * without one (libyaml and ruamel drop it there), unless the header strips it (``|-``) or the value
 * is empty or ends with one already. */
static int keeps_final_break(const Composer *c, Py_ssize_t header, const yaml_event_t *e) {
    Py_ssize_t p;
    size_t length = e->data.scalar.length;
    if (length == 0 || e->data.scalar.value[length - 1] == '\n') return 0;
    for (p = header; p < c->size && c->text[p] != '\n' && c->text[p] != '#'; p++) {
        if (c->text[p] == '-') return 0;
    }
    return 1;
}

static int count_node(Composer *c) {
    c->nodes++;
    return c->nodes > c->max_nodes ? UNSURE : OK;
}

enum { STRING, NUMBER, RESOLVED };

/* What the core schema makes of a plain scalar (schema.py's patterns, in yaml's order): a scalar
 * starting with a digit, a sign or a dot may be a number (schema.resolve_plain decides); the null
 * and bool words are resolved here (``*word``); anything else is a string. */
static int resolve_word(const yaml_event_t *e, PyObject **word) {
    const char *text = (const char *)e->data.scalar.value;
    size_t length = e->data.scalar.length;
    static const char *nulls[] = {"~", "null", "Null", "NULL"};
    static const char *trues[] = {"true", "True", "TRUE"};
    static const char *falses[] = {"false", "False", "FALSE"};
    size_t i;
    if (length == 0) {
        *word = Py_None;
        return RESOLVED;
    }
    if ((text[0] >= '0' && text[0] <= '9') || text[0] == '+' || text[0] == '-' || text[0] == '.') return NUMBER;
    for (i = 0; i < 4; i++) {
        if (length == strlen(nulls[i]) && memcmp(text, nulls[i], length) == 0) {
            *word = Py_None;
            return RESOLVED;
        }
    }
    for (i = 0; i < 3; i++) {
        if (length == strlen(trues[i]) && memcmp(text, trues[i], length) == 0) {
            *word = Py_True;
            return RESOLVED;
        }
        if (length == strlen(falses[i]) && memcmp(text, falses[i], length) == 0) {
            *word = Py_False;
            return RESOLVED;
        }
    }
    return STRING;
}

static int compose_node(Composer *c, PyObject **node, PyObject **value);

/* compose.py's _place_empty_block_value: ruamel puts a left-out block mapping value at the token
 * after it, libyaml right after the colon; only blank and comment lines may stand between. */
static int place_empty_value(Composer *c, PyObject *node, Py_ssize_t at, Py_ssize_t following) {
    Py_ssize_t p = byte_at(c, at), stop = byte_at(c, following), status = OK;
    int line_start = 1;
    PyObject *place;
    for (; p < stop; p++) {
        unsigned char ch = c->text[p];
        if (ch == '\n') {
            line_start = 1;
        } else if (line_start && ch != ' ') {
            if (ch != '#') return UNSURE; /* say an explicit "?" key: the Python composer decides */
            line_start = 0;
        }
    }
    place = PyLong_FromSsize_t(following);
    if (place == NULL) return FAILED;
    if (PyObject_SetAttrString(node, "start", place) || PyObject_SetAttrString(node, "end", place) ||
        PyObject_SetAttrString(node, "value_start", place))
        status = FAILED;
    Py_DECREF(place);
    return (int)status;
}

static int compose_scalar(Composer *c, PyObject **node, PyObject **value) {
    yaml_event_t *e = &c->event;
    c->was_empty = 0;
    Py_ssize_t start = (Py_ssize_t)e->start_mark.index, end = (Py_ssize_t)e->end_mark.index;
    PyObject *style = Py_None, *source, *resolved;
    int final_break = 0;
    if (e->data.scalar.anchor || e->data.scalar.tag) return UNSURE;
    if (count_node(c)) return UNSURE;
    switch (e->data.scalar.style) {
    case YAML_PLAIN_SCALAR_STYLE:
        if (start == end) {
            /* a left-out value: placed by the block mapping (only there the same as compose.py) */
            if (!c->empty_allowed || e->data.scalar.length) return UNSURE;
            c->was_empty = 1;
        }
        break;
    case YAML_SINGLE_QUOTED_SCALAR_STYLE:
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE: {
        Py_ssize_t after = byte_at(c, end);
        if (after < c->size && c->text[after] == '#') return UNSURE; /* the comment-separation error */
        if (c->ncolumns && c->flow_depth == 0 &&
            quoted_indent_violation(c, byte_at(c, start), after, c->columns[c->ncolumns - 1]))
            return UNSURE;
        style = e->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ? c->style_single : c->style_double;
        break;
    }
    case YAML_LITERAL_SCALAR_STYLE:
    case YAML_FOLDED_SCALAR_STYLE:
        if (!block_header_matches(c, byte_at(c, start))) return UNSURE;
        if (end >= c->length && c->text[c->size - 1] != '\n') final_break = keeps_final_break(c, byte_at(c, start), e);
        style = e->data.scalar.style == YAML_LITERAL_SCALAR_STYLE ? c->style_literal : c->style_folded;
        break;
    default:
        return UNSURE;
    }
    source = PyUnicode_DecodeUTF8((const char *)e->data.scalar.value, (Py_ssize_t)e->data.scalar.length, "strict");
    if (source == NULL) return FAILED;
    if (final_break) {
        PyObject *line_break = PyUnicode_FromString("\n"), *joined = NULL;
        if (line_break != NULL) joined = PyUnicode_Concat(source, line_break);
        Py_XDECREF(line_break);
        Py_DECREF(source);
        if (joined == NULL) return FAILED;
        source = joined;
    }
    if (style == Py_None) {
        PyObject *word = NULL;
        switch (resolve_word(e, &word)) {
        case NUMBER:
            resolved = PyObject_CallFunctionObjArgs(c->resolve_plain, source, NULL);
            if (resolved == NULL) {
                Py_DECREF(source);
                return FAILED;
            }
            break;
        case RESOLVED:
            resolved = Py_NewRef(word);
            break;
        default:
            resolved = Py_NewRef(source);
        }
    } else {
        resolved = Py_NewRef(source);
    }
    *node = PyObject_CallFunction(c->scalar_cls, "nnOOOn", start, end, source, style, resolved, start);
    Py_DECREF(source);
    if (*node == NULL) {
        Py_DECREF(resolved);
        return FAILED;
    }
    *value = resolved;
    return OK;
}

/* Enter a collection (the event is its start); ``flow`` from its style. */
static int open_collection(Composer *c, int flow) {
    c->empty_allowed = 0; /* only for the mapping value itself, not for what it holds */
    if (count_node(c)) return UNSURE;
    c->depth++;
    if (c->depth > c->max_depth) return UNSURE;
    if (flow) {
        c->flow_depth++;
    } else {
        c->columns[c->ncolumns++] = (Py_ssize_t)c->event.start_mark.column;
    }
    return OK;
}

/* Leave a collection (the event is its end) and build its node from its children (items or pairs). */
static int close_collection(Composer *c, PyObject *cls, int flow, Py_ssize_t start, PyObject *children, PyObject **node) {
    Py_ssize_t end = (Py_ssize_t)c->event.end_mark.index;
    c->depth--;
    if (!flow) {
        c->ncolumns--;
    } else if (--c->flow_depth == 0 && c->ncolumns &&
               flow_indent_violation(c, byte_at(c, start), byte_at(c, end), c->columns[c->ncolumns - 1])) {
        return UNSURE;
    }
    *node = PyObject_CallFunction(cls, "nnOO", start, end, children, flow ? Py_True : Py_False);
    return *node == NULL ? FAILED : OK;
}

static int compose_sequence(Composer *c, PyObject **node, PyObject **value) {
    yaml_event_t *e = &c->event;
    Py_ssize_t start = (Py_ssize_t)e->start_mark.index;
    int flow = e->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE, status;
    PyObject *items, *values;
    if (e->data.sequence_start.anchor || e->data.sequence_start.tag) return UNSURE;
    if ((status = open_collection(c, flow))) return status;
    items = PyList_New(0);
    values = PyList_New(0);
    if (items == NULL || values == NULL) goto failed;
    for (;;) {
        PyObject *item, *item_value;
        if ((status = next_event(c))) goto done;
        if (c->event.type == YAML_SEQUENCE_END_EVENT) break;
        if ((status = compose_node(c, &item, &item_value))) goto done;
        status = PyList_Append(items, item) || PyList_Append(values, item_value) ? FAILED : OK;
        Py_DECREF(item);
        Py_DECREF(item_value);
        if (status) goto done;
    }
    if ((status = close_collection(c, c->seq_cls, flow, start, items, node))) goto done;
    Py_DECREF(items);
    *value = values;
    return OK;
failed:
    status = FAILED;
done:
    Py_XDECREF(items);
    Py_XDECREF(values);
    return status;
}

static int compose_mapping(Composer *c, PyObject **node, PyObject **value) {
    yaml_event_t *e = &c->event;
    Py_ssize_t start = (Py_ssize_t)e->start_mark.index, empty_at = 0;
    int flow = e->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE, status;
    PyObject *pairs, *mapping, *empty = NULL; /* a left-out value, placed at the next event */
    if (e->data.mapping_start.anchor || e->data.mapping_start.tag) return UNSURE;
    if ((status = open_collection(c, flow))) return status;
    pairs = PyList_New(0);
    mapping = PyDict_New();
    if (pairs == NULL || mapping == NULL) goto failed;
    for (;;) {
        PyObject *key, *key_value, *item, *item_value, *pair;
        if ((status = next_event(c))) goto done;
        if (empty != NULL) {
            status = place_empty_value(c, empty, empty_at, (Py_ssize_t)c->event.start_mark.index);
            Py_CLEAR(empty);
            if (status) goto done;
        }
        if (c->event.type == YAML_MAPPING_END_EVENT) break;
        if (c->event.type != YAML_SCALAR_EVENT || PyList_Size(pairs) >= c->max_keys) {
            status = UNSURE; /* a collection or alias as a key; too many keys */
            goto done;
        }
        if ((status = compose_node(c, &key, &key_value))) goto done;
        if (!PyUnicode_Check(key_value) || PyDict_Contains(mapping, key_value)) {
            /* a null, bool or number key (the Python composer's JavaScript rules), or a duplicate */
            Py_DECREF(key);
            Py_DECREF(key_value);
            status = PyErr_Occurred() ? FAILED : UNSURE;
            goto done;
        }
        if ((status = next_event(c))) {
            Py_DECREF(key);
            Py_DECREF(key_value);
            goto done;
        }
        empty_at = (Py_ssize_t)c->event.start_mark.index;
        c->empty_allowed = !flow && c->event.type == YAML_SCALAR_EVENT;
        c->was_empty = 0;
        status = compose_node(c, &item, &item_value);
        c->empty_allowed = 0;
        if (status) {
            Py_DECREF(key);
            Py_DECREF(key_value);
            goto done;
        }
        if (c->was_empty) empty = Py_NewRef(item);
        c->was_empty = 0;
        pair = PyTuple_Pack(2, key, item);
        status = pair == NULL || PyList_Append(pairs, pair) || PyDict_SetItem(mapping, key_value, item_value)
                     ? FAILED
                     : OK;
        Py_XDECREF(pair);
        Py_DECREF(key);
        Py_DECREF(key_value);
        Py_DECREF(item);
        Py_DECREF(item_value);
        if (status) goto done;
    }
    if ((status = close_collection(c, c->map_cls, flow, start, pairs, node))) goto done;
    Py_DECREF(pairs);
    *value = mapping;
    return OK;
failed:
    status = FAILED;
done:
    Py_XDECREF(empty);
    Py_XDECREF(pairs);
    Py_XDECREF(mapping);
    return status;
}

static int compose_node(Composer *c, PyObject **node, PyObject **value) {
    switch (c->event.type) {
    case YAML_SCALAR_EVENT:
        return compose_scalar(c, node, value);
    case YAML_SEQUENCE_START_EVENT:
        return compose_sequence(c, node, value);
    case YAML_MAPPING_START_EVENT:
        return compose_mapping(c, node, value);
    default:
        return UNSURE; /* an alias: the Python composer shares its target */
    }
}

/* The document: (node, value), (None, None) for a stream without one, or UNSURE. */
static int compose_document(Composer *c, PyObject **node, PyObject **value) {
    int status;
    if ((status = next_event(c)) || c->event.type != YAML_STREAM_START_EVENT) return UNSURE;
    if ((status = next_event(c))) return status;
    if (c->event.type == YAML_STREAM_END_EVENT) {
        *node = Py_NewRef(Py_None);
        *value = Py_NewRef(Py_None);
        return OK;
    }
    if (c->event.type != YAML_DOCUMENT_START_EVENT || (status = next_event(c))) return UNSURE;
    if ((status = compose_node(c, node, value))) return status;
    if (next_event(c) || c->event.type != YAML_DOCUMENT_END_EVENT || next_event(c) ||
        c->event.type != YAML_STREAM_END_EVENT) {
        Py_CLEAR(*node);
        Py_CLEAR(*value);
        return UNSURE; /* a second document (the Python composer's error), or a late libyaml error */
    }
    return OK;
}

/* code point -> byte offsets of UTF-8 text (every byte but continuation bytes starts a code point) */
static Py_ssize_t *code_point_offsets(const unsigned char *text, Py_ssize_t size, Py_ssize_t length) {
    Py_ssize_t *offsets = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(length + 1)), point = 0, i;
    if (offsets == NULL) return NULL;
    for (i = 0; i < size; i++) {
        if ((text[i] & 0xC0) != 0x80) offsets[point++] = i;
    }
    offsets[length] = size;
    return offsets;
}

PyDoc_STRVAR(compose_doc,
             "compose(text, scalar_cls, map_cls, seq_cls, resolve_plain, max_depth, max_nodes, max_keys)\n"
             "--\n\n"
             "(node, value) for ``text`` as the Python composer builds them over libyaml's events, or None\n"
             "when this composer is not sure to (see the module's source).");

static PyObject *compose(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *text_obj, *node = NULL, *value = NULL, *result = NULL;
    Composer c;
    int status;
    memset(&c, 0, sizeof(c));
    if (!PyArg_ParseTuple(args, "UOOOOnnn", &text_obj, &c.scalar_cls, &c.map_cls, &c.seq_cls, &c.resolve_plain,
                          &c.max_depth, &c.max_nodes, &c.max_keys))
        return NULL;
    c.text = (const unsigned char *)PyUnicode_AsUTF8AndSize(text_obj, &c.size);
    if (c.text == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return NULL;
        PyErr_Clear(); /* a lone surrogate: no UTF-8 for libyaml, the full parser reads the text */
        return Py_NewRef(Py_None);
    }
    c.length = PyUnicode_GetLength(text_obj);
    if (c.length < 0) return NULL;
    if (c.max_depth < 1 || c.max_depth > 10000) {
        PyErr_SetString(PyExc_ValueError, "max_depth must be between 1 and 10000");
        return NULL;
    }
    if (c.length != c.size && (c.offsets = code_point_offsets(c.text, c.size, c.length)) == NULL)
        return PyErr_NoMemory();
    c.columns = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(c.max_depth + 1));
    c.style_single = PyUnicode_FromString("'");
    c.style_double = PyUnicode_FromString("\"");
    c.style_literal = PyUnicode_FromString("|");
    c.style_folded = PyUnicode_FromString(">");
    if (c.columns == NULL || !c.style_single || !c.style_double || !c.style_literal || !c.style_folded) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto cleanup;
    }
    if (!yaml_parser_initialize(&c.parser)) {
        PyErr_NoMemory();
        goto cleanup;
    }
    yaml_parser_set_input_string(&c.parser, c.text, (size_t)c.size);
    yaml_parser_set_encoding(&c.parser, YAML_UTF8_ENCODING);
    status = compose_document(&c, &node, &value);
    if (c.has_event) yaml_event_delete(&c.event);
    yaml_parser_delete(&c.parser);
    if (status == OK) {
        result = PyTuple_Pack(2, node, value);
    } else if (status == UNSURE) {
        result = Py_NewRef(Py_None);
    }
    Py_XDECREF(node);
    Py_XDECREF(value);
cleanup:
    PyMem_Free(c.offsets);
    PyMem_Free(c.columns);
    Py_XDECREF(c.style_single);
    Py_XDECREF(c.style_double);
    Py_XDECREF(c.style_literal);
    Py_XDECREF(c.style_folded);
    return result;
}

static PyMethodDef methods[] = {
    {"compose", compose, METH_VARARGS, compose_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "lsp_server.context.yaml._native",
    "libyaml's events composed in C for the fast YAML reader (see lsp_server/context/yaml/libyaml.py).",
    0,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module_def); }
