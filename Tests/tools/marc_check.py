"""Reads a MARCXML file and an ISO 2709 file with pymarc and writes what each record says as JSON (a check of
Bookmobile's MARC export that does not trust the code under test)."""
import json
import sys

from pymarc import MARCReader, parse_xml_to_array


def describe(record):
    def first(tag, code):
        field = record[tag] if tag in record else None
        return field.get(code) if field is not None else None
    return {
        "status": record.leader[5],
        "leader": str(record.leader),
        "id": record["001"].data,
        "title": first("245", "a"),
        "isbn": first("020", "a"),
        "publisher": first("264", "b"),
        "description": first("520", "a"),
        "authors": [f.get("a") for f in record.get_fields("100", "700")],
        "subjects": [f.get("a") for f in record.get_fields("650")],
        "links": [f.get("u") for f in record.get_fields("856")],
        "language": record["008"].data[35:38] if "008" in record else None,
    }


def main():
    xml_path, iso_path, out_path = sys.argv[1:4]
    xml = [describe(r) for r in parse_xml_to_array(xml_path)]
    iso = []
    with open(iso_path, "rb") as handle:
        reader = MARCReader(handle, to_unicode=True, force_utf8=True)
        for record in reader:
            if record is None:
                raise SystemExit(f"a record pymarc could not read: {reader.current_exception}")
            iso.append(describe(record))
    with open(out_path, "w", encoding="utf-8") as out:
        json.dump({"xml": xml, "iso": iso}, out)


if __name__ == "__main__":
    main()
