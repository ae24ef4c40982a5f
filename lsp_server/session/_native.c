/* Which session lines hold a number that orjson reads differently from JSON.parse, in C.
 *
 * Why: jsonl.py's Python search maps the whole buffer to its number shape (one ``translate``), then
 * searches it, and runs a regular expression for "-0": three passes over a 100 MB session, about a
 * fifth of its load. Here one pass tokenizes each line as JSON enough to tell strings from numbers:
 * inside a string, ``memchr`` jumps to the next quote (a quote after an odd run of backslashes is
 * escaped), and only the few bytes between strings are looked at one by one.
 *
 * A number needs JSON.parse's own rules when it is an integer literal (no fraction, no exponent)
 * of 16 or more digits (beyond 2**53 it rounds to a double, which orjson does not do for integers)
 * or the integer -0 (orjson's 0, JavaScript's negative zero). The answer is exact for lines that
 * are JSON; on the others orjson fails anyway and the line takes the standard decoder.
 *
 * share_strings: jsonl.py's _share_strings (the repeated short values of an entry replaced by their
 * interned copies), which the reader calls on every entry: in Python it was a tenth of the load.
 */
#define Py_LIMITED_API 0x030B0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define LONG_INTEGER 16

static int is_digit(unsigned char ch) { return ch >= '0' && ch <= '9'; }

/* The offset of the first number of line [p, stop) that needs JSON.parse's rules, or -1. */
static Py_ssize_t line_hazard(const unsigned char *base, const unsigned char *p, const unsigned char *stop) {
    while (p < stop) {
        unsigned char ch = *p;
        if (ch == '"') {
            /* a string: to its closing quote (one not escaped by an odd run of backslashes) */
            const unsigned char *q = p + 1;
            for (;;) {
                const unsigned char *quote = memchr(q, '"', (size_t)(stop - q)), *b;
                if (quote == NULL) return -1; /* unterminated: not JSON, orjson refuses the line */
                for (b = quote; b > q && b[-1] == '\\'; b--) {
                }
                q = quote + 1;
                if (((quote - b) & 1) == 0) break;
            }
            p = q;
        } else if (is_digit(ch) || ch == '-') {
            const unsigned char *number = p, *digits;
            if (ch == '-') p++;
            digits = p;
            while (p < stop && is_digit(*p)) p++;
            if (p < stop && (*p == '.' || *p == 'e' || *p == 'E')) {
                /* a fraction or an exponent: a double to both readers; skip the rest of the number */
                p++;
                while (p < stop && (is_digit(*p) || *p == '.' || *p == 'e' || *p == 'E' || *p == '+' || *p == '-'))
                    p++;
                continue;
            }
            if (p - digits >= LONG_INTEGER || (ch == '-' && p - digits == 1 && *digits == '0'))
                return number - base;
        } else {
            p++;
        }
    }
    return -1;
}

PyDoc_STRVAR(slow_offsets_doc,
             "slow_offsets(data, start, end)\n"
             "--\n\n"
             "For each line of ``data[start:end]`` holding a number orjson reads differently from\n"
             "JSON.parse (an integer literal of 16+ digits, or -0), the offset of the first such number.");

static PyObject *slow_offsets(PyObject *Py_UNUSED(module), PyObject *args) {
    Py_buffer view;
    Py_ssize_t start, end;
    PyObject *hits;
    if (!PyArg_ParseTuple(args, "y*nn", &view, &start, &end)) return NULL;
    if (start < 0) start = 0;
    if (end > view.len) end = view.len;
    hits = PyList_New(0);
    if (hits == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    {
        const unsigned char *base = view.buf, *p = base + start, *stop = base + (end > start ? end : start);
        while (p < stop) {
            const unsigned char *newline = memchr(p, '\n', (size_t)(stop - p));
            const unsigned char *line_end = newline != NULL ? newline : stop;
            Py_ssize_t at = line_hazard(base, p, line_end);
            if (at >= 0) {
                PyObject *offset = PyLong_FromSsize_t(at);
                if (offset == NULL || PyList_Append(hits, offset)) {
                    Py_XDECREF(offset);
                    Py_DECREF(hits);
                    PyBuffer_Release(&view);
                    return NULL;
                }
                Py_DECREF(offset);
            }
            p = line_end + 1;
        }
    }
    PyBuffer_Release(&view);
    return hits;
}

/* The keys whose values are shared (jsonl.py's _SHARED_MESSAGE_KEYS, in that order), then "type" and
 * "message"; made once, by the module's init. */
#define SHARED_KEYS 6
#define SHARED_MAX 64
static const char *const key_names[SHARED_KEYS + 2] = {"role", "api", "provider", "model", "stopReason", "toolName",
                                                       "type", "message"};
static PyObject *keys[SHARED_KEYS + 2];

/* Put the interned copy of dict[key]'s value in its place when it is a str (exactly) of at most
 * ``max`` code points (-1: any length). 0, or -1 with an exception set. */
static int share_value(PyObject *dict, PyObject *key, Py_ssize_t max) {
    PyObject *value = PyDict_GetItemWithError(dict, key); /* borrowed */
    if (value == NULL) return PyErr_Occurred() ? -1 : 0;
    if (!PyUnicode_CheckExact(value)) return 0;
    if (max >= 0 && PyUnicode_GetLength(value) > max) return 0;
    Py_INCREF(value);
    PyUnicode_InternInPlace(&value);
    if (value == NULL) return -1;
    {
        int failed = PyDict_SetItem(dict, key, value); /* an existing key: its place is kept */
        Py_DECREF(value);
        return failed;
    }
}

PyDoc_STRVAR(share_strings_doc,
             "share_strings(entry)\n"
             "--\n\n"
             "Replace the repeated short values of ``entry`` (a dict) by their interned copies: its\n"
             "``type``, and its message's role, api, provider, model, stopReason and toolName of at most 64\n"
             "code points. Values and key order are unchanged.");

static PyObject *share_strings(PyObject *Py_UNUSED(module), PyObject *entry) {
    PyObject *message;
    int i;
    if (!PyDict_CheckExact(entry)) {
        PyErr_SetString(PyExc_TypeError, "share_strings() takes a dict");
        return NULL;
    }
    if (share_value(entry, keys[SHARED_KEYS], -1)) return NULL;
    message = PyDict_GetItemWithError(entry, keys[SHARED_KEYS + 1]); /* borrowed */
    if (message == NULL) {
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_NONE;
    }
    if (!PyDict_CheckExact(message)) Py_RETURN_NONE;
    Py_INCREF(message); /* a key's hash or a comparison cannot run Python code for str keys, but keep it alive */
    for (i = 0; i < SHARED_KEYS; i++) {
        if (share_value(message, keys[i], SHARED_MAX)) {
            Py_DECREF(message);
            return NULL;
        }
    }
    Py_DECREF(message);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"slow_offsets", slow_offsets, METH_VARARGS, slow_offsets_doc},
    {"share_strings", share_strings, METH_O, share_strings_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "lsp_server.session._native",
    "The session reader's number check and string sharing in C (see lsp_server/session/jsonl.py).",
    0,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__native(void) {
    int i;
    for (i = 0; i < SHARED_KEYS + 2; i++) {
        if (keys[i] == NULL && (keys[i] = PyUnicode_InternFromString(key_names[i])) == NULL) return NULL;
    }
    return PyModule_Create(&module_def);
}
