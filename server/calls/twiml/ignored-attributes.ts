// Attributes Twilio has that we accept and do not act on, per element: a Twilio app that sets them keeps working
// (speech tuning, transcription, ring tones, SIP refer...), while any attribute on no list is refused.
export const GATHER_IGNORED = [
  'speechTimeout',
  'hints',
  'language',
  'profanityFilter',
  'partialResultCallback',
  'partialResultCallbackMethod',
  'speechModel',
  'enhanced',
  'bargeIn',
  'debug',
  'dtmfDetection',
  'maxSpeechTime',
];
export const RECORD_IGNORED = [
  'trim',
  'transcribe',
  'transcribeCallback',
  'recordingStatusCallbackMethod',
  'recordingStatusCallbackEvent',
  'storageUrl',
  'storageUrlMethod',
];
export const DIAL_IGNORED = [
  'answerOnBridge',
  'ringTone',
  'hangupOnStar',
  'recordingStatusCallback',
  'recordingStatusCallbackMethod',
  'recordingStatusCallbackEvent',
  'recordingTrack',
  'trim',
  'referUrl',
  'referMethod',
  'sequential',
  'events',
];
export const NUMBER_IGNORED = [
  'sendDigits',
  'url',
  'method',
  'statusCallback',
  'statusCallbackEvent',
  'statusCallbackMethod',
  'byoc',
  'machineDetection',
  'machineDetectionTimeout',
  'amdStatusCallback',
  'amdStatusCallbackMethod',
];
