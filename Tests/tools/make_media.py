#!/usr/bin/env python3
"""Small audiobooks and PDFs for the tests, so that a bare clone tests them (issue 69).

  make_media.py m4b OUT.m4b [--chapters 3] [--seconds 20] [--title T] [--author A] [--narrator N] [--cover]
      An M4B (AAC sine tones, one pitch per chapter) with chapter marks and iTunes-style tags.
  make_media.py mp3zip OUT.zip [--tracks 3] [--seconds 10] [--title T] [--author A]
      A ZIP of MP3 tracks with ID3 tags; the files' names run against the tracks' numbers, so that the order must
      come from the tags.
  make_media.py package OUT.audiobook [--tracks 3] [--seconds 10] [--title T] [--author A] [--narrator N]
      A Readium audiobook package: `manifest.json` (metadata, a reading order that runs against the files' names, a
      nested table of contents with `#t=` fragments) and the MP3 tracks.
  make_media.py pdf OUT.pdf [--pages 5] [--title T] [--author A]
      A PDF with text on every page, document information and an outline (one entry per page, a nested one on page 2).

Needs ffmpeg for the audio (Debian's `ffmpeg`); the PDF is written by hand.
"""
import argparse
import os
import subprocess
import tempfile
import zipfile


def run(args):
    subprocess.run(args, check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def tone(seconds, frequency):
    return ["-f", "lavfi", "-i", f"sine=frequency={frequency}:duration={seconds}:sample_rate=22050"]


def m4b(out, chapters, seconds, title, author, narrator, cover):
    with tempfile.TemporaryDirectory() as work:
        metadata = os.path.join(work, "chapters.txt")
        with open(metadata, "w") as f:
            f.write(";FFMETADATA1\n")
            f.write(f"title={title}\nartist={author}\nalbum_artist={author}\nalbum={title}\ncomposer={narrator}\n")
            f.write("genre=Audiobook\ndate=2024\ncomment=A generated audiobook of sine tones.\n")
            for number in range(chapters):
                f.write(f"[CHAPTER]\nTIMEBASE=1/1000\nSTART={number * seconds * 1000}\nEND={(number + 1) * seconds * 1000}\n")
                f.write(f"title=Chapter {number + 1}\n")
        parts = os.path.join(work, "parts.txt")
        with open(parts, "w") as f:
            for number in range(chapters):
                wav = os.path.join(work, f"{number}.wav")
                run(["ffmpeg", "-y", "-loglevel", "error"] + tone(seconds, 220 + 110 * number) + ["-ac", "1", wav])
                f.write(f"file '{wav}'\n")
        args = ["ffmpeg", "-y", "-loglevel", "error", "-f", "concat", "-safe", "0", "-i", parts, "-i", metadata]
        if cover:
            image = os.path.join(work, "cover.jpg")
            run(["ffmpeg", "-y", "-loglevel", "error", "-f", "lavfi", "-i", "color=c=navy:s=300x450", "-frames:v", "1", image])
            args += ["-i", image, "-map", "0:a", "-map", "2:v", "-c:v", "copy", "-disposition:v", "attached_pic"]
        else:
            args += ["-map", "0:a"]
        args += ["-map_metadata", "1", "-map_chapters", "1", "-c:a", "aac", "-b:a", "24k", "-ac", "1", "-f", "mp4", out]
        run(args)


def mp3zip(out, tracks, seconds, title, author):
    with tempfile.TemporaryDirectory() as work, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for number in range(1, tracks + 1):
            path = os.path.join(work, f"{number}.mp3")
            run(["ffmpeg", "-y", "-loglevel", "error"] + tone(seconds, 330 + 55 * number) + [
                "-ac", "1", "-b:a", "32k",
                "-metadata", f"title=Part {number}", "-metadata", f"track={number}/{tracks}",
                "-metadata", f"album={title}", "-metadata", f"artist={author}", "-metadata", "genre=Audiobook",
                path,
            ])
            # Names in the opposite order of the tracks: the ID3 track numbers decide.
            archive.write(path, f"{title}/{chr(ord('a') + tracks - number)}-part.mp3")


def package(out, tracks, seconds, title, author, narrator):
    import json
    with tempfile.TemporaryDirectory() as work, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        order = []
        for number in range(1, tracks + 1):
            path = os.path.join(work, f"{number}.mp3")
            run(["ffmpeg", "-y", "-loglevel", "error"] + tone(seconds, 300 + 40 * number) + ["-ac", "1", "-b:a", "32k", path])
            name = f"audio/{chr(ord('a') + tracks - number)}.mp3"
            archive.write(path, name)
            order.append({"href": name, "type": "audio/mpeg", "title": f"Track {number}"})
        toc = [{"href": order[0]["href"], "title": "Opening",
                "children": [{"href": order[0]["href"] + f"#t={seconds // 2}", "title": "Opening, second half"}]}]
        toc += [{"href": link["href"], "title": f"Part {index + 2}"} for index, link in enumerate(order[1:])]
        manifest = {
            "@context": "https://readium.org/webpub-manifest/context.jsonld",
            "metadata": {"@type": "http://schema.org/Audiobook", "title": title, "author": {"name": author},
                         "narrator": [narrator], "language": "en", "conformsTo": "https://readium.org/webpub-manifest/profiles/audiobook"},
            "readingOrder": order, "toc": toc,
        }
        archive.writestr("manifest.json", json.dumps(manifest))


def pdf(out, pages, title, author):
    objects = []

    def add(body):
        objects.append(body)
        return len(objects)

    catalog = add(None)
    pages_id = add(None)
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    page_ids = []
    for number in range(1, pages + 1):
        text = f"BT /F1 36 Tf 72 700 Td (Page {number} of {title}) Tj ET".encode()
        content = add(b"<< /Length %d >>\nstream\n" % len(text) + text + b"\nendstream")
        page_ids.append(add(
            b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>"
            % (pages_id, font, content)
        ))
    objects[pages_id - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % p for p in page_ids), len(page_ids))
    # The outline: "Section n" for every page, with "Section 2.1" under "Section 2" when there are two pages or more.
    outline = add(None)
    items = [add(None) for _ in page_ids]
    child = add(None) if len(items) > 1 else None
    for index, item in enumerate(items):
        fields = b"/Title (Section %d) /Parent %d 0 R /Dest [%d 0 R /Fit]" % (index + 1, outline, page_ids[index])
        if index > 0:
            fields += b" /Prev %d 0 R" % items[index - 1]
        if index < len(items) - 1:
            fields += b" /Next %d 0 R" % items[index + 1]
        if index == 1 and child:
            fields += b" /First %d 0 R /Last %d 0 R /Count 1" % (child, child)
        objects[item - 1] = b"<< " + fields + b" >>"
    if child:
        objects[child - 1] = b"<< /Title (Section 2.1) /Parent %d 0 R /Dest [%d 0 R /Fit] >>" % (items[1], page_ids[1])
    objects[outline - 1] = b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>" % (items[0], items[-1], len(items))
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R /Outlines %d 0 R /PageMode /UseOutlines >>" % (pages_id, outline)
    info = add(b"<< /Title (%s) /Author (%s) /Subject (A generated PDF) /CreationDate (D:20240102030405Z) >>" % (
        title.encode(), author.encode()))
    data = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(data))
        data += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(data)
    data += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    data += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    data += b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, catalog, info, xref)
    with open(out, "wb") as f:
        f.write(data)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=["m4b", "mp3zip", "package", "pdf"])
    parser.add_argument("out")
    parser.add_argument("--chapters", type=int, default=3)
    parser.add_argument("--tracks", type=int, default=3)
    parser.add_argument("--pages", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--title")
    parser.add_argument("--author", default="Ada Tone")
    parser.add_argument("--narrator", default="Nora Reader")
    parser.add_argument("--cover", action="store_true")
    args = parser.parse_args()
    args.title = args.title or ("A Generated PDF" if args.kind == "pdf" else "A Generated Audiobook")
    if args.kind == "m4b":
        m4b(args.out, args.chapters, args.seconds, args.title, args.author, args.narrator, args.cover)
    elif args.kind == "mp3zip":
        mp3zip(args.out, args.tracks, args.seconds, args.title, args.author)
    elif args.kind == "package":
        package(args.out, args.tracks, args.seconds, args.title, args.author, args.narrator)
    else:
        pdf(args.out, args.pages, args.title, args.author)


if __name__ == "__main__":
    main()
