/** Word pools for generated data. Plain, international, nothing that looks like a real person's record. */
export const FIRST_NAMES = [
  'Ada',
  'Ben',
  'Chloe',
  'Dario',
  'Elif',
  'Farid',
  'Greta',
  'Hugo',
  'Ines',
  'Jonas',
  'Keiko',
  'Lars',
  'Mara',
  'Nils',
  'Olga',
  'Pavel',
  'Quinn',
  'Rosa',
  'Sami',
  'Tara',
  'Umar',
  'Vera',
  'Wim',
  'Yara',
  'Zeno',
] as const;

export const LAST_NAMES = [
  'Adler',
  'Berg',
  'Costa',
  'Dietz',
  'Evans',
  'Fischer',
  'Garcia',
  'Haas',
  'Ivanova',
  'Jansen',
  'Kowalski',
  'Lindqvist',
  'Moreau',
  'Novak',
  'Okafor',
  'Petrov',
  'Quist',
  'Rossi',
  'Silva',
  'Tanaka',
  'Ueda',
  'Varga',
  'Weber',
  'Yilmaz',
  'Zimmer',
] as const;

export const COMPANIES = [
  'Northwind Traders',
  'Blue Harbor Labs',
  'Cedar & Co',
  'Delta Freight',
  'Evergreen Foods',
  'Fjord Systems',
  'Granite Works',
  'Helix Health',
  'Ionic Media',
  'Juniper Retail',
  'Kestrel Air',
  'Lumen Studio',
] as const;

export const JOB_TITLES = [
  'Operations Manager',
  'Founder',
  'Office Manager',
  'Head of IT',
  'Buyer',
  'Developer',
  'Accountant',
  'Teacher',
] as const;

export const CITIES = ['Berlin', 'Lisbon', 'Oslo', 'Vienna', 'Leeds', 'Lyon', 'Porto', 'Gdansk', 'Ghent'] as const;

export const SUBJECTS = [
  'Cannot log in to my account',
  'Invoice shows the wrong amount',
  'Order has not arrived yet',
  'Question about the Pro plan',
  'Refund request',
  'Password reset link expired',
  'Feature request: dark mode',
  'Export to CSV fails',
  'Change of billing address',
  'Damaged item in delivery',
  'How do I add a teammate?',
  'API returns an error',
  'Cancel my subscription',
  'Discount for nonprofits?',
  'Upgrade to annual billing',
  'Two-factor code not received',
  'Wrong size delivered',
  'Integration with our CRM',
  'Slow page loads',
  'Duplicate charge on my card',
] as const;

export const INBOUND_LINES = [
  'Hello, I have a problem that started this morning.',
  'Could you please help me with this as soon as possible?',
  'I tried the steps from your help center but nothing changed.',
  'Thanks for the quick answer, but the issue is still there.',
  'Attached is a screenshot of what I see.',
  'Our whole team is affected by this.',
  'Can you tell me when this will be fixed?',
  'I would like to get a refund for the last invoice.',
] as const;

export const OUTBOUND_LINES = [
  'Thanks for reaching out, I am looking into this now.',
  'Could you send us the order number so we can check?',
  'We have fixed the issue on our side; please try again.',
  'I have issued the refund; it shows up within five days.',
  'Here is a link to the guide that explains the setup.',
  'I have forwarded this to our engineering team.',
  'Glad to hear it works now. Anything else I can do?',
] as const;

export const NOTE_LINES = [
  'Customer is on the annual plan, check with billing.',
  'Looks like the same bug as last week.',
  'Escalated to tier 2.',
  'VIP account, answer within the hour.',
] as const;

export const TAG_NAMES = [
  'billing',
  'bug',
  'feature-request',
  'urgent',
  'vip',
  'refund',
  'onboarding',
  'churn-risk',
  'feedback',
  'how-to',
] as const;

export const ATTACHMENTS = [
  { name: 'screenshot.png', content_type: 'image/png' },
  { name: 'invoice.pdf', content_type: 'application/pdf' },
  { name: 'log.txt', content_type: 'text/plain' },
  { name: 'photo.jpg', content_type: 'image/jpeg' },
] as const;
