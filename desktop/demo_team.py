"""The demo home's team: Halden studio, shared by scout, ledger and quill (the Team tab on ``./dev app``).

Built through the core's team operations, as a few weeks of use would leave
it: the bots proposed notes and a person accepted them (two pinned), one note
was corrected twice (its history has three versions), one correction came in
under the same key and a new title; four cards wait — a correction, a new
fact, one noticed by capture with the words it rests on, and one whose
accepted note a person edited meanwhile (it cannot be accepted any more).
There are more notes than fit in the 6,000 bytes a team loads, so the tab
shows the ones that do not load.
"""
from __future__ import annotations

from botmemory.core import Actor, Memory, team_accept, team_create, team_edit, team_pin, team_propose

NAME = "Halden studio"
BOTS = ("scout", "ledger", "quill")
PERSON = Actor.person("panel")

# (proposing bot, key, title, text); accepted in this order, oldest first
NOTES: tuple[tuple[str, str, str, str], ...] = (
    ("ledger", "money/approvals", "Approvals",
     "Never pay, approve or send an invoice yourself: prepare it and ask Joel. Expenses above ₹25,000 need "
     "Joel's approval before anything is booked or bought."),
    ("quill", "style/spelling", "House style",
     "British English everywhere (colour, organise), sentence-case headlines, no exclamation marks in client "
     "copy, and dates written as 14 Oct."),
    ("scout", "studio/people", "Who does what",
     "Priya leads; Neha designs (and covers Kabir's clients while he is on leave); Omar and Leela do research; "
     "Tara builds the front end; Joel runs operations, expenses and IT."),
    ("scout", "studio/review", "Studio review", "Weekly studio review is Monday 11:00 IST, 45 minutes, in the big room."),
    ("scout", "studio/drive", "Where files go",
     "Client files live in Drive under Halden Labs / Clients / <client> / <year>; drafts for Priya go to the "
     "\"Scout drafts\" folder, never straight to email."),
    ("ledger", "money/invoices", "Invoices",
     "Invoices go out on the 1st, numbered HL-YYYY-NNN, from Zoho Books (org Halden Labs LLP)."),
    ("ledger", "kestrel/billing", "Kestrel billing",
     "Kestrel Foods is billed in EUR, net 30, and every invoice carries their PO number (now KF-2026-114)."),
    ("ledger", "northwind/billing", "Northwind billing",
     "Northwind pays by NEFT within 15 days; invoices go to accounts@northwind.in with the milestone's name."),
    ("ledger", "orbit/billing", "Orbit billing", "Orbit Learning wants invoices split by milestone."),
    ("scout", "kestrel/contact", "Kestrel contact",
     "Kestrel Foods (Rotterdam): ordering app for restaurants; contact Ilse de Vries. Restaurants order "
     "between 22:00 and 02:00, after service."),
    ("scout", "northwind/contact", "Northwind contact",
     "Northwind Logistics: fleet dashboard; Sanjay Mehta (Head of Product) decides, Rohan Iyer leads "
     "engineering and prefers Figma dev mode links."),
    ("scout", "orbit/contact", "Orbit contact",
     "Orbit Learning: onboarding flow; contact Farah Khan. Learners are 14–17 and parents pay, so the parent "
     "path must earn their trust."),
    ("quill", "kestrel/voice", "Kestrel's voice",
     "Kestrel copy is plain and warm, short sentences, food words first; the brand colours are fixed, never "
     "propose a new palette."),
    ("quill", "decks/format", "Client decks",
     "Client decks: 16:9, Inter, one idea per slide, exported as A4 PDF with notes; the last slide lists the "
     "decisions needed, never \"Thank you\"."),
    ("quill", "research/quotes", "Research quotes",
     "Participants are P1, P2, … in anything shared; quotes are verbatim, in italics, with the P-number, never "
     "paraphrased."),
    ("scout", "studio/calendar", "Calendar",
     "The studio's shared calendar is \"Halden — Studio\"; holds named \"HOLD — <topic>\" may be moved without "
     "asking; Friday afternoons stay free of meetings."),
    ("scout", "studio/digest", "Monday digest",
     "The weekly digest of open client questions goes to Slack #studio on Monday at 09:45 IST: client — "
     "question — owner — due, sorted by due date, Orbit and Kestrel included even when quiet."),
    ("ledger", "money/receipts", "Receipts",
     "Receipts go to receipts@haldenlabs.in and are matched every Friday; freelancers are paid on the 15th "
     "after their invoice is approved."),
    ("ledger", "money/freelancers", "Femke",
     "Femke Bakker (Dutch translation) invoices in EUR and is paid by Wise, not SWIFT."),
    ("scout", "northwind/console", "Dispatcher console",
     "Northwind's dispatcher console is dark mode by default, light mode as an option (Sanjay approved it)."),
    ("quill", "orbit/parents", "Orbit parent path",
     "Orbit's parent screens speak to parents, never to the learner, and explain every permission they grant."),
    ("scout", "studio/offsite", "Offsite",
     "The studio offsite is in Lonavala; transport by the studio van; the agenda is a retro, the 2027 plan and "
     "a walk to Tiger Point."),
    ("scout", "pipeline/monsoon", "Monsoon Books",
     "Monsoon Books (a Goa publisher, 30 staff) wants a reader app; the intro call is next Wednesday 11:00 IST "
     "with Anil."),
    ("scout", "pipeline/sahyadri", "Sahyadri Clinics",
     "Sahyadri Clinics (three hospitals in Pune) want a patient check-in kiosk; they asked for healthcare case "
     "studies, which were sent."),
    ("scout", "tools/linear", "Linear", "Linear team key is HAL; client projects are labelled by client name; "
     "Tara wants feedback there, not in Slack."),
    ("quill", "tools/figma", "Figma names",
     "Figma files are named \"<Client> — <Project> — <Stage>\"; comments older than 30 days are resolved in the "
     "Monday review."),
    ("scout", "tools/loom", "Walkthroughs", "Use Loom for any walkthrough over 5 minutes; screen recordings go in "
     "Drive \"Recordings / <year>\"."),
    ("scout", "tools/slack", "Slack status",
     "Slack status \"heads down\" means no messages until 15:00 IST; the studio channel is #studio."),
    ("quill", "tools/sharing", "Sharing links",
     "Links shared with clients are always \"anyone with the link can comment\", never edit."),
    ("scout", "kestrel/sharepoint", "Kestrel files",
     "Kestrel's shared folder is in their SharePoint; ask Ilse for access when needed."),
    ("scout", "time/rotterdam", "Rotterdam time", "Rotterdam is IST − 4:30 in winter and IST − 3:30 in summer."),
    ("quill", "notes/naming", "Meeting notes",
     "Meeting notes are named \"YYYY-MM-DD <client> <topic>\": decisions first, then actions with owners, then "
     "the discussion."),
    ("scout", "calendar/invites", "Client invites",
     "Calendar invites to clients carry an agenda of three bullets; meetings are 25 minutes, never before 10:00 "
     "IST."),
    ("quill", "decks/pdf", "PDF exports", "PDF exports are A4, not Letter, with the \"Halden cover\" template."),
    ("scout", "tools/notion", "Notion", "The studio's Notion is read-only since the move to Drive: never file "
     "anything there."),
    ("scout", "studio/diwali", "Diwali week", "The studio closes for Diwali week: no client meetings, no invoices "
     "sent."),
    ("scout", "hiring/loop", "Interview loop",
     "Researcher interviews: portfolio review (45 min), case study (90 min), team lunch; Omar runs them."),
    ("quill", "research/dovetail", "Dovetail",
     "Research notes live in Dovetail, project \"Halden 2026\", tagged pain, workaround, delight, quote."),
    ("ledger", "money/gst", "GST", "GST registered in Maharashtra: GSTR-1 quarterly, GSTR-3B monthly; Mr. "
     "Kulkarni reviews the numbers before filing."),
    ("ledger", "money/tools", "Books", "Only Ledger opens Zoho Books; the other bots ask Ledger about invoices "
     "and payments."),
    ("scout", "status/format", "Status updates", "Status updates are three bullets: done, next, blocked; Friday "
     "summaries go out by 16:00 IST."),
    ("scout", "clients/kickoff", "Client kick-off",
     "Before a client kick-off:\n1. Folder in Drive under Clients / <client> / <year>\n2. Linear project labelled "
     "with the client's name\n3. Figma file named <Client> — <Project> — Discovery\n4. Contract and PO "
     "numbers to Ledger\n5. Three-bullet agenda on the invite\n6. Notes named YYYY-MM-DD <client> kick-off"),
    ("quill", "kestrel/release", "Kestrel app releases",
     "For every Kestrel app release:\n- copy in English and Dutch, checked by Femke\n- store screenshots in "
     "both languages, captions under 30 characters\n- release notes plain and warm, food words first\n- Ilse "
     "approves before anything goes to the store"),
    ("scout", "studio/escalation", "When something goes wrong",
     "A client complaint, a missed deadline or a payment problem goes to Priya the same day, in one message: "
     "what happened, who is affected, what we propose. Never promise a client a date without her."),
    ("ledger", "money/quotes", "Quotes",
     "Quotes state the fee in INR (or EUR for Kestrel), the weeks, what is out of scope and the payment "
     "milestones; Orbit's follow-up quote was 3 weeks for ₹6.8 lakh."),
    ("scout", "zoom/external", "Zoom", "Priya's standing Zoom link is only for external calls; the studio uses "
     "Google Meet inside."),
)

PINNED = ("money/approvals", "style/spelling")


def build(mem: Memory) -> str:
    """Make the demo team in *mem* (its member bots exist already); its key."""
    key = team_create(mem, NAME, list(BOTS), PERSON).team.team
    notes: dict[str, str] = {}
    for bot, k, title, text in NOTES:
        card = team_propose(mem, key, text, Actor.bot("Team notes", "mcp"), title=title, key=k, bot=bot).card
        notes[k] = team_accept(mem, key, card.card, card.rev, PERSON).note.note
    for k in PINNED:
        team_pin(mem, key, notes[k], True, PERSON)
    # a note corrected twice: its history keeps three versions
    n = team_edit(mem, key, notes["studio/drive"], "Client files live in Drive under Halden Labs / Clients / "
                  "<client> / <year>; drafts for Priya go to \"Scout drafts\".", 1, PERSON).note
    team_edit(mem, key, n.note, "Client files live in Drive under Halden Labs / Clients / <client> / <year>; "
              "drafts for Priya go to \"Scout drafts\", never straight to email or to the client.", n.rev, PERSON)
    # a card that would correct a note a person then edited: it cannot be accepted any more
    team_propose(mem, key, "Northwind pays within 30 days from this quarter.", Actor.bot("Invoice reconciliation"),
                 title="Northwind billing", key="northwind/billing", bot="ledger")
    team_edit(mem, key, notes["northwind/billing"], "Northwind pays by NEFT within 15 days; invoices go to "
              "accounts@northwind.in with the milestone's name and the PO.", 1, PERSON)
    # waiting for a person: a correction under the same key and a new title, a new fact, one capture noticed
    team_propose(mem, key, "Weekly studio review moves to Tuesday 11:00 IST from November, 45 minutes.",
                 Actor.bot("Studio"), title="Studio review (from November)", key="studio/review", bot="quill")
    team_propose(mem, key, "Kestrel's PO number for 2027 is KF-2027-009.", Actor.bot("Invoice reconciliation"),
                 title="Kestrel PO 2027", key="kestrel/po-2027", bot="ledger")
    team_propose(mem, key, "Leela leads the research for Sahyadri Clinics, with Omar.",
                 Actor("upkeep", "capture", "Hiring"), title="Sahyadri research", key="pipeline/sahyadri-research",
                 bot="scout", quotes=["Leela will lead the Sahyadri research, Omar pairs with her"])
    return key
