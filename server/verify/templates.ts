// What the user receives: a text (sms, whatsapp) or words a call speaks (voice), per locale. Every value of the
// spec's VerificationLocale has both, so the compiler catches a locale added to the spec without templates.
import type { components } from '../../generated/openapi.js';
import type { VerificationChannel } from '../store/schema.js';

export type Locale = components['schemas']['VerificationLocale'];

interface Template {
  text: string;
  voice: string;
}

export const TEMPLATES: Record<Locale, Template> = {
  en: {
    text: 'Your verification code is {code}. Do not share it with anyone.',
    voice: 'Your verification code is {code}. Once again, your code is {code}.',
  },
  es: {
    text: 'Tu código de verificación es {code}. No lo compartas con nadie.',
    voice: 'Tu código de verificación es {code}. Repito, tu código es {code}.',
  },
  fr: {
    text: 'Votre code de vérification est {code}. Ne le partagez avec personne.',
    voice: 'Votre code de vérification est {code}. Je répète, votre code est {code}.',
  },
  de: {
    text: 'Ihr Bestätigungscode lautet {code}. Geben Sie ihn an niemanden weiter.',
    voice: 'Ihr Bestätigungscode lautet {code}. Ich wiederhole, Ihr Code lautet {code}.',
  },
  it: {
    text: 'Il tuo codice di verifica è {code}. Non condividerlo con nessuno.',
    voice: 'Il tuo codice di verifica è {code}. Ripeto, il tuo codice è {code}.',
  },
  pt: {
    text: 'O seu código de verificação é {code}. Não o partilhe com ninguém.',
    voice: 'O seu código de verificação é {code}. Repito, o seu código é {code}.',
  },
  'pt-BR': {
    text: 'Seu código de verificação é {code}. Não compartilhe com ninguém.',
    voice: 'Seu código de verificação é {code}. Repetindo, seu código é {code}.',
  },
  nl: {
    text: 'Uw verificatiecode is {code}. Deel deze met niemand.',
    voice: 'Uw verificatiecode is {code}. Ik herhaal, uw code is {code}.',
  },
  pl: {
    text: 'Twój kod weryfikacyjny to {code}. Nie udostępniaj go nikomu.',
    voice: 'Twój kod weryfikacyjny to {code}. Powtarzam, twój kod to {code}.',
  },
  tr: {
    text: 'Doğrulama kodunuz {code}. Bu kodu kimseyle paylaşmayın.',
    voice: 'Doğrulama kodunuz {code}. Tekrar ediyorum, kodunuz {code}.',
  },
  ja: {
    text: '認証コードは {code} です。このコードを他人に教えないでください。',
    voice: '認証コードは {code} です。もう一度繰り返します。コードは {code} です。',
  },
  zh: {
    text: '您的验证码是 {code}。请勿与任何人分享。',
    voice: '您的验证码是 {code}。再重复一遍，您的验证码是 {code}。',
  },
  ko: {
    text: '인증 코드는 {code}입니다. 다른 사람과 공유하지 마세요.',
    voice: '인증 코드는 {code}입니다. 다시 한 번, 코드는 {code}입니다.',
  },
  ru: {
    text: 'Ваш код подтверждения: {code}. Никому его не сообщайте.',
    voice: 'Ваш код подтверждения: {code}. Повторяю, ваш код: {code}.',
  },
  ar: {
    text: 'رمز التحقق الخاص بك هو {code}. لا تشاركه مع أي شخص.',
    voice: 'رمز التحقق الخاص بك هو {code}. أكرر، رمزك هو {code}.',
  },
  hi: {
    text: 'आपका सत्यापन कोड {code} है। इसे किसी के साथ साझा न करें।',
    voice: 'आपका सत्यापन कोड {code} है। फिर से, आपका कोड {code} है।',
  },
  sv: {
    text: 'Din verifieringskod är {code}. Dela den inte med någon.',
    voice: 'Din verifieringskod är {code}. Jag upprepar, din kod är {code}.',
  },
};

export const CODE_PLACEHOLDER = '{code}';

/** A call speaks the code digit by digit ("4, 8, 2, ..."), so text-to-speech never reads it as one number. */
function spokenDigits(code: string, locale: Locale): string {
  return code.split('').join(locale === 'ja' || locale === 'zh' ? '、' : ', ');
}

/** The words sent (or spoken) for `code`: the caller's template when given, else the locale's. */
export function renderCode(
  code: string,
  channel: VerificationChannel,
  locale: Locale,
  customMessage: string | null,
): string {
  const template = customMessage ?? (channel === 'voice' ? TEMPLATES[locale].voice : TEMPLATES[locale].text);
  const rendered = channel === 'voice' ? spokenDigits(code, locale) : code;
  return template.split(CODE_PLACEHOLDER).join(rendered);
}
