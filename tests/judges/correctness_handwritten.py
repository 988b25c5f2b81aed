"""Wrong answers written by hand, before the correctness rules they test were designed.

Each: (demo item, the wrong answer, what is wrong). The question and expected answer are the
item's own (``demo-correctness``). Negations with and without a leading "Yes"/"No", flipped
relation words, swapped names and changed figures, worded as an agent might word them.
"""

HANDWRITTEN = [
    ("HB-0020", "Yes, alcohol at team dinners is reimbursed.", "yes/no and polarity flipped"),
    ("HB-0025", "Customer data can be stored on personal devices.", "negation dropped, no No"),
    ("HB-0031", "Meridian Health insurance does not cover you from your first day; there is a "
     "£100 excess per policy year.", "negated main verb"),
    ("HB-0041", "During probation either side may end employment with one month's notice.",
     "changed figure (unit)"),
    ("HB-0049", "Core hours are 09:00 to 17:00 UK and Irish time.", "changed times"),
    ("HB-0077", "Salary is paid on the first working day of each month.", "first/last flipped"),
    ("HB-0018", "First class is allowed only for journeys under three hours booked at least "
     "seven days ahead and costing no more than the flexible standard fare.", "over/under"),
    ("HB-0010", "Your manager holds a short return-to-work conversation within your first two "
     "weeks back.", "days → weeks"),
    ("HB-0060", "At least 10% of net monthly pay is recovered each month, unless the employee "
     "agrees to a faster schedule.", "no more than → at least"),
    ("HB-0100", "No, LumenAssist may not be used with Confidential data.", "No + negation"),
    ("HB-0024", "Public chatbots may be used with Confidential information.", "name swapped"),
    ("HB-0182", "Every employee has a personal learning budget of €1,200 a year.", "currency"),
    ("HB-0183", "The Irish learning budget is £1,400 a year.", "currency £ for €"),
    ("HB-0185", "No, partner leave must be taken within the first 6 months.", "No + figure"),
    ("HB-0169", "From your fifth work anniversary, one extra day per year up to 28 days.",
     "ordinal changed"),
    ("HB-0029", "Every four years for engineering roles and every three years for other roles.",
     "figures swapped between slots"),
    ("HB-0172", "At least 20 working days in a calendar year, in any country.", "up to → at least"),
    ("HB-0047", "Yes, conference travel and hotels come from your learning budget.",
     "yes/no flipped, budget swapped"),
    ("HB-0089", "Keyward is the company password manager, but work passwords must never be "
     "stored in it.", "negated"),
    ("HB-0033", "ClearPath offers up to six counselling sessions per issue each year, but they "
     "are not free.", "negated attribute"),
    ("HB-0034", "Up to £1,250 in the UK through the cycle-to-work scheme.", "other slot's amount"),
    ("HB-0056", "A first written warning stays live for 12 months.", "other slot's figure"),
    ("HB-0176", "The London cap is £140 a night including breakfast.", "other city's amount"),
    ("HB-0095", "HW-2 is the home workspace self-assessment, completed in Harbour after you have "
     "started working from home.", "before → after"),
    ("GQ-MA-0015", "I am a pious woman, just like my sister.", "negation dropped"),
]
