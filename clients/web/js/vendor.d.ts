// The types of /vendor/qrcode.mjs, the file the server serves from the qrcode-generator package
// (vendor.json); tsconfig.json's `paths` sends the import here.
import qrcode from "qrcode-generator";
export default qrcode;
