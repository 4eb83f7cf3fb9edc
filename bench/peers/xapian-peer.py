"""Xapian beside askdata in bench/peers.ts: one JSON request a line on stdin, one JSON answer a line on stdout.

  {"op": "add", "docs": [{"id": ..., "title": ..., "text": ...}]}  -> {"ok": true}
  {"op": "commit"}                                                  -> {"ok": true}
  {"op": "search", "text": ..., "limit": 10}                        -> {"ids": [...], "ms": in-process time}

English stemming and stopwords, the query's terms ORed, BM25 with askdata's k1 0.9 and b 0.4; the title is indexed
with the text, as askdata counts it. Run with the system python (python3-xapian): /usr/bin/python3.
"""
import json
import sys
import time

import xapian

STOPWORDS = (
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these they "
    "this to was will with"
).split()


def main():
    db = xapian.WritableDatabase(sys.argv[1], xapian.DB_CREATE_OR_OPEN)
    stemmer = xapian.Stem("english")
    stopper = xapian.SimpleStopper()
    for w in STOPWORDS:
        stopper.add(w)
    indexer = xapian.TermGenerator()
    indexer.set_stemmer(stemmer)
    indexer.set_stopper(stopper)
    parser = xapian.QueryParser()
    parser.set_stemmer(stemmer)
    parser.set_stemming_strategy(xapian.QueryParser.STEM_SOME)
    parser.set_stopper(stopper)
    parser.set_default_op(xapian.Query.OP_OR)
    enquire = None
    for line in sys.stdin:
        req = json.loads(line)
        op = req["op"]
        if op == "add":
            for d in req["docs"]:
                doc = xapian.Document()
                indexer.set_document(doc)
                indexer.index_text(d["title"])
                indexer.increase_termpos()
                indexer.index_text(d["text"])
                doc.set_data(d["id"])
                idterm = "Q" + d["id"]
                doc.add_boolean_term(idterm)
                db.replace_document(idterm, doc)
            out = {"ok": True}
        elif op == "commit":
            db.commit()
            enquire = xapian.Enquire(db)
            enquire.set_weighting_scheme(xapian.BM25Weight(0.9, 0, 1, 0.4, 0.5))
            out = {"ok": True}
        elif op == "search":
            t = time.perf_counter()
            enquire.set_query(parser.parse_query(req["text"]))
            ids = [m.document.get_data().decode() for m in enquire.get_mset(0, req.get("limit", 10))]
            out = {"ids": ids, "ms": (time.perf_counter() - t) * 1000}
        else:
            out = {"error": "unknown op " + op}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
